//! `wiki-parse`: parse vault pages into JSON Lines records (see `wiki_vault::cmd`).

fn main() -> std::process::ExitCode {
    let cli: wiki_vault::cmd::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-parse", || {
        wiki_vault::cmd::run(&cli.global, &cli.args)
    })
}
