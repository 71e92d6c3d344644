//! `wiki-apply`: the apply/history/rollback/agent commands as one binary (see the crate docs).

use std::process::ExitCode;

use clap::FromArgMatches;
use wiki_apply::cmd;
use wiki_cli::{CliError, GlobalArgs, exit};

fn main() -> ExitCode {
    let matches = match wiki_apply::cmd::binary_cli().try_get_matches() {
        Ok(m) => m,
        Err(err) => {
            let code = match err.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => exit::OK,
                _ => exit::ERROR,
            };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
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
