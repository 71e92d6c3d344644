//! # wiki-status — the vault's health and the agent's view of it
//!
//! * [`status`] — what `wiki status` reports: the original's status object (reference §12) and
//!   the git-native facts (branch and agent, uncommitted changes, compiled files, search index
//!   and server, repository size), with [`findings`] (warning codes, messages, fixes);
//! * [`text`] — the status and doctor texts and the doctor's JSON;
//! * [`context`] — the compact prompt digest (reference §13): tool guidance and the compiled
//!   digest's top pages and claims;
//! * [`artifacts`] — the public memory artifacts a bridge-mode vault would read (a count);
//! * [`obsidian`] — the official Obsidian CLI helpers (`wiki obsidian …`);
//! * [`cmd::config`] — `wiki config show`: the effective OpenClaw configuration
//!   ([`wiki_cli::config`]) with the source of every value;
//! * [`cmd::status`] — `wiki status` and `wiki doctor` (exit 1 when unhealthy).

pub mod artifacts;
pub mod cmd;
pub mod context;
pub mod findings;
pub mod obsidian;
pub mod status;
pub mod text;

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "status",
            "Show the vault's mode, pages, git state, compiled files and warnings",
            cmd::status::Args,
            cmd::status::run
        ),
        wiki_cli::subcommand!(
            "doctor",
            "Check the vault's health and print the command that fixes each finding",
            cmd::status::DoctorArgs,
            cmd::status::run_doctor
        ),
        wiki_cli::subcommand!(
            "context",
            "Print the compact prompt digest: tool guidance and the compiled wiki's top pages",
            cmd::context::Args,
            cmd::context::run
        ),
        wiki_cli::subcommand!(
            "obsidian",
            "Run the official Obsidian CLI on the vault: status, search, open, command, daily",
            cmd::obsidian::Args,
            cmd::obsidian::run
        ),
        wiki_cli::subcommand!(
            "list",
            "List the pages of the compiled digest: by kind, stale, contested, low confidence",
            cmd::list::Args,
            cmd::list::run
        ),
        wiki_cli::subcommand!(
            "config",
            "Show the effective OpenClaw config and where each value came from",
            cmd::config::Args,
            cmd::config::run
        ),
    ]
}
