//! `wiki-digest`: compiled data from page records or the vault (see `wiki_digest::cmd::digest`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli: wiki_digest::cmd::digest::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-digest", || {
        wiki_digest::cmd::digest::run(&cli.global, &cli.args)
    })
}
