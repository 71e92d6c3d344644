//! `wiki-search`: search plumbing — one `{"type":"hit",...}` JSON Lines record per result
//! (see `wiki_search::cmd::search`).

use wiki_search::cmd::search;

fn main() -> std::process::ExitCode {
    // A search the vault's search server answers needs no more than this.
    if let Some(code) = search::run_served("wiki-search") {
        return code;
    }
    let cli: search::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-search", || {
        search::run_plumbing(&cli.global, &cli.args)
    })
}
