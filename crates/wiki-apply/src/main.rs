//! `wiki-apply`: the apply/history/rollback/agent commands as one binary (see the crate docs).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::FromArgMatches;
use wiki_apply::cmd;
use wiki_cli::{CliError, GlobalArgs};

fn main() -> ExitCode {
    // Commits may pack in a detached copy of this binary (see wiki_store::background).
    if let Some(code) = wiki_store::background::main_hook() {
        return code;
    }
    let matches = wiki_cli::get_matches(cmd::binary_cli());
    wiki_cli::main_wrapper("wiki-apply", || {
        let global =
            GlobalArgs::from_arg_matches(&matches).map_err(|e| CliError::Usage(e.to_string()))?;
        if let Some((name, sub)) = matches.subcommand()
            && let Some(c) = wiki_apply::commands()
                .into_iter()
                .find(|c| c.name == name && c.name != "apply")
        {
            return (c.run)(&global, sub);
        }
        let args = cmd::apply::Args::from_arg_matches(&matches)
            .map_err(|e| CliError::Usage(e.to_string()))?;
        cmd::apply::run(&global, &args)
    })
}
