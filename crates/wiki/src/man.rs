//! Man pages generated from the clap definitions (`clap_mangen`).
//!
//! `man/wiki.1` documents the dispatcher, `man/wiki-<command>.1` each built-in command (git
//! style), and each component binary (`wiki-parse`, `wiki-digest`, …) gets the page of its own
//! command line. `scripts/gen-man` regenerates them; a test fails when they are stale.

use clap::CommandFactory;

/// Component binaries and their command lines.
pub fn binaries() -> Vec<clap::Command> {
    vec![
        wiki_vault::cmd::Cli::command(),
        wiki_digest::cmd::digest::Cli::command(),
        wiki_lint::cmd::check::Cli::command(),
        wiki_search::cmd::search::Cli::command(),
        wiki_apply::cmd::binary_cli(),
    ]
}

fn render(cmd: clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(cmd).render(&mut out);
    out
}

/// The `wiki <sub>` form of a command that also exists as a component binary, appended to the
/// binary's page (so `man wiki-lint` documents both `wiki-lint` and `wiki lint`).
fn render_subcommand_section(sub: &clap::Command) -> Vec<u8> {
    let name = sub.get_name().to_string();
    let cmd = sub
        .clone()
        .name(format!("wiki-{name}"))
        .bin_name(format!("wiki {name}"));
    let man = clap_mangen::Man::new(cmd);
    let mut out = format!(".SH \"AS wiki {name}\"\n").into_bytes();
    let mut body = Vec::new();
    let _ = man.render_synopsis_section(&mut body);
    let _ = man.render_description_section(&mut body);
    let _ = man.render_options_section(&mut body);
    let _ = man.render_subcommands_section(&mut body);
    // Demote the sub-page's sections to sub-sections of this one.
    let text = String::from_utf8_lossy(&body).replace(".SH ", ".SS ");
    out.extend_from_slice(text.as_bytes());
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
        // A command group (`wiki memory`) also gets a page per command (`wiki-memory-facts.1`).
        for nested in sub.get_subcommands().filter(|n| n.get_name() != "help") {
            let nested_name = format!("{name}-{}", nested.get_name());
            let cmd = nested.clone().name(nested_name.clone()).bin_name(format!(
                "wiki {} {}",
                sub.get_name(),
                nested.get_name()
            ));
            pages.push((format!("{nested_name}.1"), render(cmd)));
        }
    }
    for b in binaries {
        let name = b.get_name().to_string();
        let mut page = render(b);
        if let Some(sub) = top
            .get_subcommands()
            .find(|s| format!("wiki-{}", s.get_name()) == name)
        {
            page.extend(render_subcommand_section(sub));
        }
        pages.push((format!("{name}.1"), page));
    }
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    pages
}
