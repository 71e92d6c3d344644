//! `wiki-search`: search plumbing — one `{"type":"hit",...}` JSON Lines record per result
//! (see `wiki_search::cmd::search`).

use wiki_search::cmd::search;

#[derive(clap::Parser)]
#[command(
    name = "wiki-search",
    version,
    about = "Search a wiki vault (JSON Lines hit records)"
)]
struct Cli {
    #[command(flatten)]
    global: wiki_cli::GlobalArgs,
    #[command(flatten)]
    args: search::Args,
}

fn main() -> std::process::ExitCode {
    let cli: Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-search", || {
        search::run_plumbing(&cli.global, &cli.args)
    })
}
