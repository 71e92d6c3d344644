//! `wiki-lint --staged`: lint what is about to be committed, read-only, from the git index.
//!
//! * The pages to lint are the staged pages that differ from `HEAD` (added or modified index
//!   entries under the vault's page directories); their content is read from the index (the
//!   staged blob), never from the working tree, so unstaged edits neither hide nor cause
//!   findings.
//! * Cross-page checks run against `HEAD` plus the staged changes, which is exactly the index:
//!   every page path of the index is a valid link target, and the pages that could share an id
//!   or a claim id with a staged page are found by a literal search for those ids in the
//!   frontmatter of every other indexed page (where ids and claim ids are declared: the
//!   dashboards, which name every claim id in their bodies, are not parsed for it), then parsed
//!   (a page that writes an id with YAML escapes is not found; ids are plain words in
//!   practice). Only findings about staged pages are reported, so a pre-commit hook never
//!   blocks on problems the commit did not touch.
//! * Pages deleted (or renamed away) by the commit: links in other pages that named them and no
//!   longer name any page are reported as `broken-wikilink` on those pages.
//! * Unchanged pages are read from the working tree when git's stat data says the file is
//!   exactly the indexed blob (same size, times and inode, not racily clean), else from the
//!   object database. Page directories that the index's cache-tree proves identical to `HEAD`
//!   are not listed from `HEAD`, and link targets are restricted to pages whose file name a
//!   linted link mentions, so the cost follows what is staged, not the vault's size.
//!
//! The index and objects are read through the vault layer ([`wiki_vault::staged_index`],
//! `wiki-store`'s read-only [`wiki_store::staged`]); nothing is written.

use std::collections::HashSet;
use std::path::Path;

use rayon::prelude::*;
use wiki_parse::links::LinkTargets;
use wiki_parse::{PageError, PageInfo};
use wiki_store::staged::{IndexPage, StagedIndex};

pub use wiki_store::staged::StagedError;

/// The pages `--staged` lints and the context of the cross-page checks.
#[derive(Debug, Default)]
pub struct StagedSet {
    /// Staged pages that parsed, followed by the unchanged pages that may share an id or claim
    /// id with them, and pages that linked to deleted pages.
    pub pages: Vec<PageInfo>,
    /// Staged pages that failed to parse.
    pub errors: Vec<PageError>,
    /// Vault-relative paths of the staged (added or modified) pages.
    pub changed: HashSet<String>,
    /// Vault-relative paths of pages deleted by the commit.
    pub deleted: Vec<String>,
    /// The page paths of the index (valid link targets after the commit), restricted to those
    /// whose file stem a link of [`StagedSet::pages`] names.
    pub targets: LinkTargets,
    /// The page paths of `HEAD` (valid link targets before the commit), restricted likewise;
    /// only built when the commit deletes pages.
    pub head_targets: LinkTargets,
    /// Unchanged pages read because they name a deleted page (for `broken-wikilink`).
    pub linking_to_deleted: HashSet<String>,
    /// The vault's path inside the repository, with a trailing `/` (empty at the root).
    pub prefix: String,
}

/// An unchanged page's bytes and which needles they contain.
struct Scanned {
    bytes: Vec<u8>,
    id_hit: bool,
    link_hit: bool,
}

/// The file names (without `.md`) a link can name a page by: the last segment of its target
/// and of its resolved path, without `#fragment`, `?query` and `.md`. A page is a valid target of
/// the link only if its file stem is one of these, so link targets can be restricted to pages
/// with these stems.
fn link_stems(page: &PageInfo, out: &mut HashSet<String>) {
    for link in &page.links {
        for t in std::iter::once(link.target.as_str()).chain(link.resolved.as_deref()) {
            let t = t
                .split(['#', '?'])
                .next()
                .unwrap_or("")
                .trim()
                .trim_end_matches('/');
            let last = t.rsplit('/').next().unwrap_or(t);
            out.insert(last.to_string());
            if last.len() >= 3 && last[last.len() - 3..].eq_ignore_ascii_case(".md") {
                out.insert(last[..last.len() - 3].to_string());
            }
        }
    }
}

/// Load the staged pages of the vault at `vault` and what the cross-page checks need.
pub fn load(vault: &Path) -> Result<StagedSet, StagedError> {
    let index = wiki_vault::staged_index(vault)?;
    let mut set = StagedSet {
        prefix: index.prefix.clone(),
        ..Default::default()
    };
    let in_index: HashSet<&str> = index.pages.iter().map(|e| e.rel.as_str()).collect();
    let mut deleted: Vec<String> = index
        .head_blobs
        .keys()
        .filter(|p| !in_index.contains(p.as_str()))
        .cloned()
        .collect();
    deleted.sort();
    let mut needles = parse_changed(&index, &mut set)?;
    // Names by which other pages may link to a deleted page.
    let mut link_needles: Vec<String> = deleted
        .iter()
        .map(|d| wiki_parse::page::file_stem(d).to_string())
        .collect();
    set.deleted = deleted;
    needles.sort();
    needles.dedup();
    link_needles.sort();
    link_needles.dedup();
    if !needles.is_empty() || !link_needles.is_empty() {
        read_related(&index, &needles, &link_needles, &mut set)?;
    }
    link_targets(&index, &mut set);
    Ok(set)
}

/// Parse the staged (changed) pages from their blobs into `set`; returns the ids and claim ids
/// they declare.
fn parse_changed(index: &StagedIndex, set: &mut StagedSet) -> Result<Vec<String>, StagedError> {
    let mut needles: Vec<String> = Vec::new();
    for e in index.pages.iter().filter(|e| e.changed) {
        set.changed.insert(e.rel.clone());
        if e.symlink {
            set.errors.push(PageError {
                path: e.rel.clone(),
                line: 1,
                message: wiki_parse::vault::SYMLINKED_PAGE.into(),
            });
            continue;
        }
        let bytes = index.read_blob(e)?;
        match wiki_parse::parse_page(&e.rel, &bytes) {
            Ok(page) => {
                needles.extend(page.summary.id.clone());
                needles.extend(page.summary.claims.iter().filter_map(|c| c.id.clone()));
                set.pages.push(page.info);
            }
            Err(err) => set.errors.push(err),
        }
    }
    Ok(needles)
}

/// Read the unchanged pages that declare one of `needles` (ids, claim ids) in their
/// frontmatter or mention one of `link_needles` (names of deleted pages), and add them to
/// `set`.
fn read_related(
    index: &StagedIndex,
    needles: &[String],
    link_needles: &[String],
    set: &mut StagedSet,
) -> Result<(), StagedError> {
    let id_finders: Vec<memchr::memmem::Finder<'_>> = needles
        .iter()
        .map(|n| memchr::memmem::Finder::new(n.as_bytes()))
        .collect();
    let link_finders: Vec<memchr::memmem::Finder<'_>> = link_needles
        .iter()
        .map(|n| memchr::memmem::Finder::new(n.as_bytes()))
        .collect();
    let unchanged: Vec<&IndexPage> = index
        .pages
        .iter()
        .filter(|e| !e.changed && !e.symlink)
        .collect();
    // Ids and claim ids are declared in frontmatter only: a page whose body alone names them
    // (the dashboards list every claim id) is not parsed for them.
    let scan = |bytes: Vec<u8>| {
        let id_hit = wiki_parse::frontmatter::declares(&bytes, |part| {
            id_finders.iter().any(|f| f.find(part).is_some())
        });
        Scanned {
            id_hit,
            link_hit: link_finders.iter().any(|f| f.find(&bytes).is_some()),
            bytes,
        }
    };
    // Scan the files the index vouches for on disk in parallel; the rest is read from the
    // object database.
    let vouched = index.vouched();
    let scanned: Vec<Option<Scanned>> = unchanged
        .par_iter()
        .map(|e| {
            vouched.read(e).map(scan).map(|mut hit| {
                if !hit.id_hit && !hit.link_hit {
                    hit.bytes = Vec::new();
                }
                hit
            })
        })
        .collect();
    let mut matched: Vec<(&str, Scanned)> = Vec::new();
    for (e, hit) in unchanged.iter().zip(scanned) {
        let hit = match hit {
            Some(hit) => hit,
            None => scan(index.read_blob(e)?),
        };
        if hit.id_hit || hit.link_hit {
            matched.push((e.rel.as_str(), hit));
        }
    }
    let parsed: Vec<(Option<PageInfo>, bool, &str)> = matched
        .par_iter()
        .map(|(rel, hit)| {
            let page = wiki_parse::parse_page(rel, &hit.bytes).ok().map(|p| p.info);
            (page, hit.link_hit, *rel)
        })
        .collect();
    for (page, link_hit, rel) in parsed {
        if let Some(page) = page {
            if link_hit {
                set.linking_to_deleted.insert(rel.to_string());
            }
            set.pages.push(page);
        }
    }
    Ok(())
}

/// Link targets, restricted to the pages whose file stem some linted link names.
fn link_targets(index: &StagedIndex, set: &mut StagedSet) {
    let mut stems: HashSet<String> = HashSet::new();
    for page in &set.pages {
        link_stems(page, &mut stems);
    }
    let named = |p: &&str| stems.contains(wiki_parse::page::file_stem(p));
    let paths = || index.pages.iter().map(|e| e.rel.as_str());
    set.targets = LinkTargets::new(paths().filter(named));
    if !set.deleted.is_empty() {
        // HEAD = the index's pages in clean directories plus the listed ones.
        set.head_targets = LinkTargets::new(
            paths()
                .filter(|p| index.is_clean(p))
                .chain(index.head_blobs.keys().map(String::as_str))
                .filter(named),
        );
    }
}
