//! `wiki-search`: search plumbing — one `{"type":"hit",...}` JSON Lines record per result
//! (see `wiki_search::cmd::search`).

use wiki_search::cmd::search;

fn main() -> std::process::ExitCode {
    let cli: search::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-search", || {
        search::run_plumbing(&cli.global, &cli.args)
    })
}
