//! `wiki-digest`: compiled data from page records or the vault (see `wiki_digest::cmd::digest`).

#[global_allocator]
static GLOBAL: wiki_alloc::Allocator = wiki_alloc::Allocator;

fn main() -> std::process::ExitCode {
    wiki_alloc::configure();
    let cli: wiki_digest::cmd::digest::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-digest", || {
        wiki_digest::cmd::digest::run(&cli.global, &cli.args)
    })
}
