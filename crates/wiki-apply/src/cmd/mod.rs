//! The commands of this crate, one module each (`Args` + `run`), shared by the `wiki-apply`
//! binary and the `wiki` dispatcher.

pub mod agent;
pub mod apply;
pub mod gc;
pub mod history;
pub mod rollback;

use crate::session::{Compiler, DigestCompiler, NoCompile};

/// The compiler used after operations and rollbacks (`no_compile`: none; `dry_run`: the files
/// it changes keep their previous content, for the diff), with the OpenClaw config's render
/// settings.
pub fn compiler(no_compile: bool, dry_run: bool) -> Result<Box<dyn Compiler>, wiki_cli::CliError> {
    Ok(if no_compile {
        Box::new(NoCompile)
    } else {
        Box::new(DigestCompiler {
            keep_before: dry_run,
            render: wiki_digest::RenderConfig::load()?,
        })
    })
}

/// The command line of the `wiki-apply` binary: `apply`'s arguments at the top level plus the
/// `history`, `rollback` and `agent` subcommands (also used to generate its man page).
pub fn binary_cli() -> clap::Command {
    use clap::Args as _;
    let mut c = clap::Command::new("wiki-apply")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Apply narrow wiki mutations (JSON Lines on stdin) as one git commit; history, rollback and agent branches");
    c = wiki_cli::GlobalArgs::augment_args(c);
    c = apply::Args::augment_args(c);
    for sub in crate::commands() {
        if sub.name != "apply" {
            c = c.subcommand((sub.command)());
        }
    }
    c
}
