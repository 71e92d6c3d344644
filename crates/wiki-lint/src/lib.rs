//! wiki-lint (skeleton)

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    Vec::new()
}
