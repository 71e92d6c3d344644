//! The page list every compiled output is built from, and small shared helpers.
//!
//! Order matters for byte-exact output. Like the original plugin, pages are first put in *scan
//! order* (groups `sources`, `entities`, `concepts`, `syntheses`, `reports`, each sorted by path)
//! and then stably sorted by title with [`locale_cmp`] (JavaScript's `localeCompare`), so pages
//! with equal titles keep their scan order. Dashboards, Related blocks, indexes and
//! `claims.jsonl` use this *title order*; `agent-digest.json` lists pages by path.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use wiki_parse::health::{locale_cmp, sort_by_locale_then};
use wiki_parse::layout::RenderMode;
use wiki_parse::links::format_link;
use wiki_parse::{PageInfo, PageKind};

/// Scan order: kind group first, then path (`localeCompare`, as the original sorts file names).
pub fn scan_cmp(a: &PageInfo, b: &PageInfo) -> Ordering {
    group_index(a.kind)
        .cmp(&group_index(b.kind))
        .then_with(|| locale_cmp(&a.path, &b.path))
        .then_with(|| a.path.cmp(&b.path))
}

fn group_index(kind: PageKind) -> usize {
    PageKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

/// Pages in title order (see the module docs). The input order does not matter.
pub fn title_order<'a>(pages: impl IntoIterator<Item = &'a PageInfo>) -> Vec<&'a PageInfo> {
    let mut v: Vec<&PageInfo> = pages.into_iter().collect();
    sort_title_order(&mut v, |p| p);
    v
}

/// Sort `items` into title order by the page each one stands for (`page`): one sort by title,
/// scan order only among equal titles (the same order as scan order then a stable title sort).
pub fn sort_title_order<T: Sync>(items: &mut Vec<T>, page: impl Fn(&T) -> &PageInfo + Sync) {
    sort_by_locale_then(items, |t| &page(t).title, |a, b| scan_cmp(page(a), page(b)));
}

/// Number of pages per kind (`pageCounts`; key order as the original writes it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCounts {
    /// `entities/`
    pub entity: usize,
    /// `concepts/`
    pub concept: usize,
    /// `sources/`
    pub source: usize,
    /// `syntheses/`
    pub synthesis: usize,
    /// `reports/`
    pub report: usize,
}

impl PageCounts {
    /// Count pages by kind.
    pub fn of<'a>(pages: impl IntoIterator<Item = &'a PageInfo>) -> PageCounts {
        let mut c = PageCounts::default();
        for p in pages {
            *c.get_mut(p.kind) += 1;
        }
        c
    }

    /// The count of one kind.
    pub fn get(&self, kind: PageKind) -> usize {
        match kind {
            PageKind::Entity => self.entity,
            PageKind::Concept => self.concept,
            PageKind::Source => self.source,
            PageKind::Synthesis => self.synthesis,
            PageKind::Report => self.report,
        }
    }

    fn get_mut(&mut self, kind: PageKind) -> &mut usize {
        match kind {
            PageKind::Entity => &mut self.entity,
            PageKind::Concept => &mut self.concept,
            PageKind::Source => &mut self.source,
            PageKind::Synthesis => &mut self.synthesis,
            PageKind::Report => &mut self.report,
        }
    }

    /// All pages.
    pub fn total(&self) -> usize {
        self.entity + self.concept + self.source + self.synthesis + self.report
    }

    /// As a JSON object (`{"entity":…,"concept":…,"source":…,"synthesis":…,"report":…}`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "entity": self.entity,
            "concept": self.concept,
            "source": self.source,
            "synthesis": self.synthesis,
            "report": self.report,
        })
    }
}

/// Writes links in the vault's render mode (reference §2.6, newest behaviour): native links are
/// relative to the file that contains them, obsidian links are `[[path-without-.md|Title]]`.
#[derive(Debug, Clone, Copy)]
pub struct Linker {
    /// Link style.
    pub mode: RenderMode,
}

impl Linker {
    /// A linker for `mode`.
    pub fn new(mode: RenderMode) -> Linker {
        Linker { mode }
    }

    /// A link from the file `from` to the page at `target` titled `title`.
    pub fn link(&self, from: &str, target: &str, title: &str) -> String {
        format_link(self.mode == RenderMode::Obsidian, from, target, title)
    }

    /// A link from `from` to `page`.
    pub fn page(&self, from: &str, page: &PageInfo) -> String {
        self.link(from, &page.path, &page.title)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_order_is_title_order_over_scan_order() {
        let titles = [
            "Alpha", "alpha", "Beta", "Ärger", "beta", "Zeta", "Alpha", "10", "2", "",
        ];
        let dirs = [
            "entities",
            "concepts",
            "sources",
            "syntheses",
            "reports",
            "entities/sub",
        ];
        let mut infos = Vec::new();
        for (i, title) in titles.iter().enumerate() {
            for (j, dir) in dirs.iter().enumerate() {
                let path = format!(
                    "{dir}/{}-{}.md",
                    ["b", "A", "a", "ä"][(i * 7 + j * 3) % 4],
                    i * 10 + j
                );
                let text = format!("---\ntitle: \"{title}\"\n---\n# Heading\n");
                infos.push(wiki_parse::parse_page(&path, text.as_bytes()).unwrap().info);
            }
        }
        // The definition: stable sort by scan order, then stable sort by title.
        let mut want: Vec<&PageInfo> = infos.iter().rev().collect();
        want.sort_by(|a, b| scan_cmp(a, b));
        wiki_parse::health::sort_by_locale(&mut want, |p| &p.title);
        let paths = |v: Vec<&PageInfo>| v.iter().map(|p| p.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(title_order(infos.iter().rev())), paths(want.clone()));
        assert_eq!(paths(title_order(infos.iter())), paths(want));
    }
}
