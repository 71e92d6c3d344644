//! The `## Related` block written on every non-report page (reference §2.7).
//!
//! Candidates are the non-report pages in title order. For a page P:
//!
//! 1. **Sources**: the candidates whose `id` is in P's `sourceIds`, in `sourceIds` order (when two
//!    candidates share an id, the last one in title order is used, as upstream).
//! 2. **Referenced By**: other candidates that list P's `id` in their `sourceIds`, or link to P. A
//!    link names P when its normalised target ([`normalize_key`]) equals P's normalised path, path
//!    without `.md`, title or id. Markdown links are read relative to the linking page
//!    (`../sources/alpha.md` in `entities/beta.md`); when that names no page, the older
//!    vault-root-relative reading (`sources/alpha.md` anywhere) is tried. Wikilinks are compared as
//!    written (`[[entities/beta]]`, `[[Beta]]`). More than 24 → the section is omitted; else at
//!    most 12 are shown.
//! 3. **Related Pages**: other candidates, not already listed, that share a source id with P
//!    whose fan-out (other candidates listing it) is at most 24; at most 12.
//!
//! Each section is de-duplicated by page id (else path), keeping the first in title order, and
//! lists links relative to P. An empty block reads `- No related pages yet.`.
//!
//! The original compares every page with every other page (quadratic); here reverse indexes from
//! keys, ids and source ids to candidates make the whole vault linear in the number of links.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use wiki_parse::links::{LinkKind, normalize_key, normalize_path};
use wiki_parse::{PageInfo, PageKind};

use crate::pages::Linker;

/// Items shown per section.
pub const MAX_PER_SECTION: usize = 12;
/// Above this many backlinks the section is hidden; a source id shared by more than this many
/// other pages does not make pages related.
pub const MAX_FANOUT: usize = 24;

/// The empty body.
pub const EMPTY: &str = "- No related pages yet.";

/// Reverse indexes over the candidate pages of a vault.
pub struct RelatedIndex<'a> {
    cands: Vec<&'a PageInfo>,
    /// candidate path → candidate index
    by_path: HashMap<&'a str, usize>,
    /// id → last candidate with that id
    last_by_id: HashMap<&'a str, usize>,
    /// target page index → candidates that link to it or list its id as a source (unsorted)
    backlinkers: Vec<Vec<usize>>,
    /// source id → candidates listing it (each once)
    by_source: HashMap<&'a str, Vec<usize>>,
    /// source id → number of occurrences over all candidates
    source_occ: HashMap<&'a str, usize>,
    linker: Linker,
}

fn unique_by_id<'a>(pages: impl IntoIterator<Item = &'a PageInfo>) -> Vec<&'a PageInfo> {
    let mut seen: HashSet<&str> = HashSet::new();
    pages
        .into_iter()
        .filter(|p| seen.insert(p.id_or_path()))
        .collect()
}

impl<'a> RelatedIndex<'a> {
    /// Build the indexes from all pages in title order (report pages are ignored).
    pub fn new(pages_in_title_order: &[&'a PageInfo], linker: Linker) -> RelatedIndex<'a> {
        let cands: Vec<&PageInfo> = pages_in_title_order
            .iter()
            .copied()
            .filter(|p| p.kind != PageKind::Report)
            .collect();
        let mut by_path = HashMap::with_capacity(cands.len());
        let mut last_by_id = HashMap::with_capacity(cands.len());
        let mut ids: HashMap<&str, Vec<usize>> = HashMap::with_capacity(cands.len());
        let mut keys: HashMap<String, Vec<usize>> = HashMap::with_capacity(cands.len() * 3);
        let mut by_source: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut source_occ: HashMap<&str, usize> = HashMap::new();
        for (i, p) in cands.iter().enumerate() {
            by_path.insert(p.path.as_str(), i);
            if let Some(id) = p.summary.id.as_deref() {
                last_by_id.insert(id, i);
                ids.entry(id).or_default().push(i);
            }
            let stem = p.path.strip_suffix(".md").unwrap_or(&p.path);
            let mut own: Vec<String> = vec![
                normalize_key(&p.path),
                normalize_key(stem),
                normalize_key(&p.title),
            ];
            if let Some(id) = p.summary.id.as_deref() {
                own.push(normalize_key(id));
            }
            own.sort();
            own.dedup();
            for k in own {
                keys.entry(k).or_default().push(i);
            }
            for sid in &p.summary.source_ids {
                *source_occ.entry(sid.as_str()).or_default() += 1;
                let list = by_source.entry(sid.as_str()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        let mut backlinkers: Vec<Vec<usize>> = vec![Vec::new(); cands.len()];
        for (c, p) in cands.iter().enumerate() {
            for sid in &p.summary.source_ids {
                if let Some(targets) = ids.get(sid.as_str()) {
                    for &t in targets {
                        backlinkers[t].push(c);
                    }
                }
            }
            for link in &p.links {
                let key = match link.kind {
                    LinkKind::Wikilink => Some(normalize_key(&link.target)),
                    LinkKind::Markdown => {
                        let relative = link
                            .resolved
                            .as_deref()
                            .map(normalize_key)
                            .filter(|k| keys.contains_key(k));
                        relative.or_else(|| {
                            normalize_path(link.target.trim_start_matches("./"))
                                .map(|t| normalize_key(&t))
                        })
                    }
                };
                if let Some(targets) = key.as_ref().and_then(|k| keys.get(k)) {
                    for &t in targets {
                        backlinkers[t].push(c);
                    }
                }
            }
        }
        RelatedIndex {
            cands,
            by_path,
            last_by_id,
            backlinkers,
            by_source,
            source_occ,
            linker,
        }
    }

    /// The Related block body for the page at `path`, `None` for report pages and pages the
    /// index does not know.
    pub fn body(&self, path: &str) -> Option<String> {
        let &p = self.by_path.get(path)?;
        let page = self.cands[p];
        let sources = unique_by_id(
            page.summary
                .source_ids
                .iter()
                .filter_map(|sid| self.last_by_id.get(sid.as_str()))
                .map(|&i| self.cands[i]),
        );
        let mut back: Vec<usize> = self.backlinkers[p].clone();
        back.sort_unstable();
        back.dedup();
        back.retain(|&c| c != p);
        let back = unique_by_id(back.into_iter().map(|c| self.cands[c]));
        let back: Vec<&PageInfo> = if back.len() <= MAX_FANOUT {
            back.into_iter().take(MAX_PER_SECTION).collect()
        } else {
            Vec::new()
        };
        let mut related: Vec<usize> = Vec::new();
        if !page.summary.source_ids.is_empty() {
            for sid in &page.summary.source_ids {
                let own = page.summary.source_ids.iter().filter(|s| *s == sid).count();
                let fanout = self.source_occ.get(sid.as_str()).copied().unwrap_or(0) - own;
                if fanout <= MAX_FANOUT
                    && let Some(list) = self.by_source.get(sid.as_str())
                {
                    related.extend(list.iter().copied());
                }
            }
        }
        related.sort_unstable();
        related.dedup();
        let listed: HashSet<&str> = sources
            .iter()
            .chain(back.iter())
            .map(|p| p.path.as_str())
            .collect();
        let related: Vec<&PageInfo> = unique_by_id(
            related
                .into_iter()
                .filter(|&c| c != p)
                .map(|c| self.cands[c])
                .filter(|c| !listed.contains(c.path.as_str())),
        )
        .into_iter()
        .take(MAX_PER_SECTION)
        .collect();

        let mut sections: Vec<String> = Vec::new();
        for (heading, list) in [
            ("### Sources", &sources),
            ("### Referenced By", &back),
            ("### Related Pages", &related),
        ] {
            if list.is_empty() {
                continue;
            }
            let lines: Vec<String> = list
                .iter()
                .map(|t| format!("- {}", self.linker.page(&page.path, t)))
                .collect();
            sections.push(format!("{heading}\n\n{}", lines.join("\n")));
        }
        Some(if sections.is_empty() {
            EMPTY.to_string()
        } else {
            sections.join("\n\n")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiki_parse::layout::RenderMode;
    use wiki_parse::parse_page;

    fn page(path: &str, fm: &str, body: &str) -> PageInfo {
        let text = format!("---\n{fm}\n---\n\n{body}");
        parse_page(path, text.as_bytes()).unwrap().info
    }

    fn body_of(pages: &[PageInfo], path: &str) -> String {
        let order = crate::pages::title_order(pages.iter());
        RelatedIndex::new(&order, Linker::new(RenderMode::Native))
            .body(path)
            .unwrap()
    }

    #[test]
    fn backlinks_are_capped_at_12_and_hidden_above_24() {
        let mut pages = vec![page("entities/t.md", "id: entity.t\ntitle: T", "# T\n")];
        for i in 0..20 {
            pages.push(page(
                &format!("concepts/c{i:02}.md"),
                &format!("id: concept.c{i:02}\ntitle: C{i:02}"),
                "[T](../entities/t.md)\n",
            ));
        }
        let body = body_of(&pages, "entities/t.md");
        assert_eq!(body.matches("\n- ").count(), 12, "{body}");
        assert!(body.starts_with("### Referenced By\n\n- [C00](../concepts/c00.md)\n"));
        for i in 20..25 {
            pages.push(page(
                &format!("concepts/c{i:02}.md"),
                &format!("id: concept.c{i:02}\ntitle: C{i:02}"),
                "[[T]]\n",
            ));
        }
        assert_eq!(body_of(&pages, "entities/t.md"), EMPTY);
    }

    #[test]
    fn shared_sources_relate_pages_below_the_fanout_cap() {
        let mut pages = vec![page("sources/s.md", "id: source.s\ntitle: S", "# S\n")];
        for i in 0..3 {
            pages.push(page(
                &format!("entities/e{i}.md"),
                &format!("id: entity.e{i}\ntitle: E{i}\nsourceIds: [source.s]"),
                "# E\n",
            ));
        }
        assert_eq!(
            body_of(&pages, "entities/e0.md"),
            "### Sources\n\n- [S](../sources/s.md)\n\n### Related Pages\n\n- [E1](e1.md)\n- [E2](e2.md)"
        );
        for i in 3..26 {
            pages.push(page(
                &format!("entities/e{i}.md"),
                &format!("id: entity.e{i}\ntitle: E{i}\nsourceIds: [source.s]"),
                "# E\n",
            ));
        }
        // 25 other pages share source.s: no longer related through it.
        assert_eq!(
            body_of(&pages, "entities/e0.md"),
            "### Sources\n\n- [S](../sources/s.md)"
        );
    }

    #[test]
    fn duplicate_ids_collapse_to_the_first_in_title_order() {
        let pages = vec![
            page("sources/s.md", "id: source.s\ntitle: S", "# S\n"),
            page(
                "concepts/a.md",
                "id: concept.x\ntitle: A\nsourceIds: [source.s]",
                "",
            ),
            page(
                "concepts/b.md",
                "id: concept.x\ntitle: B\nsourceIds: [source.s]",
                "",
            ),
        ];
        assert_eq!(
            body_of(&pages, "sources/s.md"),
            "### Referenced By\n\n- [A](../concepts/a.md)"
        );
    }
}
