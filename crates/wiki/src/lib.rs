//! # wiki — the dispatcher
//!
//! `wiki <command> [args]`, git-style: the built-in commands contributed by the library crates
//! (`parse`, `compile`, `lint`, `search`, `get`, `apply`, …) plus any executable `wiki-<name>` on
//! `PATH`, so users can add their own. Global options (`--vault`, `--agent`, `--format`/`--json`,
//! `--now`) are defined once in [`wiki_cli::GlobalArgs`]; for external commands they are passed
//! on as environment variables (`WIKI_VAULT`, `WIKI_AGENT`, `WIKI_NOW`, `WIKI_FORMAT`).

pub mod completions;
pub mod init;
pub mod man;
pub mod new;
pub mod usage;

use wiki_cli::Subcommand;

/// Every built-in subcommand, in help order.
pub fn builtin() -> Vec<Subcommand> {
    let mut all = vec![wiki_cli::subcommand!(
        "init",
        "Create the vault layout and commit it (idempotent)",
        init::Args,
        init::run
    )];
    all.push(wiki_cli::subcommand!(
        "new",
        "Start a page from its kind's template and commit it",
        new::Args,
        new::run
    ));
    all.extend(wiki_parse::commands());
    all.extend(wiki_digest::commands());
    all.extend(wiki_lint::commands());
    all.extend(wiki_search::commands());
    all.extend(wiki_apply::commands());
    all.extend(wiki_import::commands());
    all.extend(wiki_status::commands());
    all.extend(wiki_memory::commands());
    all.extend(wiki_mcp::commands());
    all.push(wiki_cli::subcommand!(
        "completions",
        "Print the shell completion script (bash, zsh, fish, elvish, powershell)",
        completions::Args,
        completions::run
    ));
    all
}

/// The full clap command tree of `wiki` (used for parsing, `--help` and man pages).
pub fn cli() -> clap::Command {
    let mut cmd = <wiki_cli::GlobalArgs as clap::Args>::augment_args(clap::Command::new("wiki"))
        .version(env!("CARGO_PKG_VERSION"))
        .about("Git-native toolchain for an agent's knowledge vault")
        .long_about(
            "Git-native toolchain for an agent's knowledge vault.\n\n\
             Built-in commands are listed below; any executable `wiki-<name>` on PATH is also \
             available as `wiki <name>`.",
        )
        .subcommand_required(true)
        .allow_external_subcommands(true);
    for sub in builtin() {
        let mut sub_cmd = (sub.command)();
        if let Some(examples) = usage::examples(sub.name) {
            sub_cmd = sub_cmd.after_help(usage::examples_help(examples));
        }
        if let Some(line) = usage::usage_override(sub.name) {
            sub_cmd = sub_cmd.override_usage(line);
        }
        cmd = cmd.subcommand(sub_cmd);
    }
    cmd
}

/// The commands that need no vault: `init` creates one; `status`, `doctor` and `config` report
/// a missing vault as their finding; `parse` reads any directory of Markdown pages.
pub const WITHOUT_VAULT: &[&str] = &[
    "init",
    "status",
    "doctor",
    "config",
    "parse",
    "completions",
    "help",
];
