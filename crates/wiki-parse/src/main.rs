//! `wiki-parse`: parse vault pages into JSON Lines records (see `wiki_parse::cmd`).

fn main() -> std::process::ExitCode {
    let cli: wiki_parse::cmd::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-parse", || {
        wiki_parse::cmd::run(&cli.global, &cli.args)
    })
}
