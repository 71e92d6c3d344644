//! `wiki-parse`: parse vault pages into JSON Lines records (see `wiki_parse::cmd`).

use clap::Parser;

/// Parse vault pages into JSON Lines records.
#[derive(Parser)]
#[command(name = "wiki-parse", version, about, long_about = None)]
struct Cli {
    #[command(flatten)]
    global: wiki_cli::GlobalArgs,
    #[command(flatten)]
    args: wiki_parse::cmd::Args,
}

fn main() -> std::process::ExitCode {
    let cli: Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-parse", || {
        wiki_parse::cmd::run(&cli.global, &cli.args)
    })
}
