//! `wiki-lint`: lint vault pages (see `wiki_lint::cmd::check`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli: wiki_lint::cmd::check::Cli = wiki_cli::parse_args();
    wiki_cli::main_wrapper("wiki-lint", || {
        wiki_lint::cmd::check::run(&cli.global, &cli.args)
    })
}
