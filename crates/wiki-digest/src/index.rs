//! `index.md` and `<dir>/index.md` managed blocks (reference §4.4).
//!
//! The root index lists counts then every group (`Sources`, `Entities`, `Concepts`, `Syntheses`,
//! `Reports`) in title order, or `- No <group> yet.`; each directory index lists its own group
//! with links relative to the directory. A missing index file starts as `# <Title>\n`.

use wiki_parse::PageInfo;
use wiki_parse::PageKind;
use wiki_parse::layout::RenderMode;
use wiki_parse::markers::Block;

use crate::pages::{Linker, PageCounts};

/// The index files compile maintains: `(path, title, block)`, in write order.
pub fn index_files() -> Vec<(String, &'static str, Block)> {
    let mut v = vec![("index.md".to_string(), "Wiki Index", Block::root_index())];
    for kind in PageKind::ALL {
        v.push((
            format!("{}/index.md", kind.dir()),
            kind.heading(),
            Block::dir_index(kind.dir()),
        ));
    }
    v
}

fn section(pages: &[&PageInfo], kind: PageKind, from: &str, linker: Linker) -> String {
    let lines: Vec<String> = pages
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| format!("- {}", linker.page(from, p)))
        .collect();
    if lines.is_empty() {
        format!("- No {} yet.", kind.heading().to_lowercase())
    } else {
        lines.join("\n")
    }
}

/// The root `index.md` block body. `pages` in title order.
pub fn root_body(pages: &[&PageInfo], counts: &PageCounts, linker: Linker) -> String {
    let claims: usize = pages.iter().map(|p| p.summary.claims.len()).sum();
    let mode = match linker.mode {
        RenderMode::Native => "native",
        RenderMode::Obsidian => "obsidian",
    };
    let mut lines = vec![
        format!("- Render mode: `{mode}`"),
        format!("- Total pages: {}", pages.len()),
        format!("- Claims: {claims}"),
    ];
    for kind in PageKind::ALL {
        lines.push(format!("- {}: {}", kind.heading(), counts.get(kind)));
    }
    for kind in PageKind::ALL {
        lines.push(String::new());
        lines.push(format!("### {}", kind.heading()));
        lines.push(section(pages, kind, "index.md", linker));
    }
    lines.join("\n")
}

/// The `<dir>/index.md` block body for `kind`. `pages` in title order.
pub fn dir_body(pages: &[&PageInfo], kind: PageKind, linker: Linker) -> String {
    section(pages, kind, &format!("{}/index.md", kind.dir()), linker)
}
