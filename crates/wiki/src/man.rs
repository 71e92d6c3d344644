//! Man pages generated from the clap definitions (`clap_mangen`).
//!
//! `man/wiki.1` documents the dispatcher, `man/wiki-<command>.1` each built-in command (git
//! style), and each component binary (`wiki-parse`, `wiki-digest`, …) gets the page of its own
//! command line. `scripts/gen-man` regenerates them; a test fails when they are stale.

use clap::CommandFactory;

/// Component binaries and their command lines.
pub fn binaries() -> Vec<clap::Command> {
    vec![wiki_parse::cmd::Cli::command()]
}

fn render(cmd: clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(cmd).render(&mut out);
    out
}

/// Every man page as `(file name, bytes)`, sorted by file name.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let mut pages = Vec::new();
    let top = crate::cli();
    pages.push(("wiki.1".to_string(), render(top.clone())));
    let binaries = binaries();
    for sub in top.get_subcommands() {
        let name = format!("wiki-{}", sub.get_name());
        if binaries.iter().any(|b| b.get_name() == name) {
            continue;
        }
        let cmd = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("wiki {}", sub.get_name()));
        pages.push((format!("{name}.1"), render(cmd)));
    }
    for b in binaries {
        let name = b.get_name().to_string();
        pages.push((format!("{name}.1"), render(b)));
    }
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    pages
}
