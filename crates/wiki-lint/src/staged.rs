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
//! Reading the index and objects uses `gix` directly (read-only); nothing is written.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::{Mode, Stage};
use rayon::prelude::*;
use wiki_parse::links::LinkTargets;
use wiki_parse::vault::{self, PageKind};
use wiki_parse::{PageError, PageInfo};

/// Errors that stop staged linting (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StagedError {
    /// No git repository contains the vault.
    #[error("{path}: not inside a git repository (--staged reads the git index): {message}")]
    NoRepository {
        /// The vault directory.
        path: PathBuf,
        /// What gix reported.
        message: String,
    },
    /// The repository has no work tree.
    #[error("{0}: bare repository (--staged needs a work tree with an index)")]
    Bare(PathBuf),
    /// The vault is not inside the repository's work tree.
    #[error("{vault}: the vault is not inside the work tree {workdir}")]
    OutsideWorkTree {
        /// The vault directory.
        vault: PathBuf,
        /// The work tree root.
        workdir: PathBuf,
    },
    /// Reading git data failed.
    #[error("cannot read {what}: {message}")]
    Git {
        /// What was being read.
        what: String,
        /// The underlying error.
        message: String,
    },
}

fn git_err<E: std::fmt::Display>(what: impl Into<String>) -> impl FnOnce(E) -> StagedError {
    let what = what.into();
    move |e| StagedError::Git {
        what,
        message: e.to_string(),
    }
}

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

struct IndexPage {
    rel: String,
    id: ObjectId,
    symlink: bool,
    /// The stat data git recorded for the file when it was staged.
    stat: gix::index::entry::Stat,
}

/// The vault's position in its repository: `(work tree root, prefix)`.
fn locate(repo: &gix::Repository, vault: &Path) -> Result<(PathBuf, String), StagedError> {
    let workdir = repo
        .workdir()
        .ok_or_else(|| StagedError::Bare(vault.to_path_buf()))?;
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (workdir, vault_c) = (canon(workdir), canon(vault));
    let rel = vault_c
        .strip_prefix(&workdir)
        .map_err(|_| StagedError::OutsideWorkTree {
            vault: vault.to_path_buf(),
            workdir: workdir.clone(),
        })?;
    let mut prefix = rel.to_string_lossy().replace('\\', "/");
    if !prefix.is_empty() {
        prefix.push('/');
    }
    Ok((workdir, prefix))
}

/// Page blobs of `HEAD` under the vault.
struct HeadPages {
    /// Vault-relative path → blob id, for the page directories that may differ from the index.
    blobs: HashMap<String, ObjectId>,
    /// Page directories (`entities/` …) whose index content is exactly `HEAD`'s, by the index's
    /// cache-tree extension: their entries are unchanged and were not listed.
    clean_dirs: Vec<String>,
}

impl HeadPages {
    fn is_clean(&self, rel: &str) -> bool {
        self.clean_dirs.iter().any(|d| rel.starts_with(d.as_str()))
    }
}

/// The cache-tree node of `path` (`/`-separated, relative to the repository root), if valid.
fn cache_tree_node<'a>(
    root: Option<&'a gix::index::extension::Tree>,
    path: &str,
) -> Option<&'a gix::index::extension::Tree> {
    let mut node = root?;
    for comp in path.split('/').filter(|c| !c.is_empty()) {
        node = node
            .children
            .iter()
            .find(|c| c.name.as_slice() == comp.as_bytes())?;
    }
    node.num_entries.is_some().then_some(node)
}

/// List `HEAD`'s pages under the vault, skipping page directories the cache-tree proves clean.
fn head_pages(
    repo: &gix::Repository,
    prefix: &str,
    cache_tree: Option<&gix::index::extension::Tree>,
) -> Result<HeadPages, StagedError> {
    let mut out = HeadPages {
        blobs: HashMap::new(),
        clean_dirs: Vec::new(),
    };
    let tree_id = repo
        .head_tree_id_or_empty()
        .map_err(git_err("HEAD"))?
        .detach();
    let tree = repo.find_tree(tree_id).map_err(git_err("the HEAD tree"))?;
    for kind in PageKind::ALL {
        let dir = format!("{prefix}{}", kind.dir());
        let Some(entry) = tree
            .lookup_entry_by_path(&dir)
            .map_err(git_err(format!("{dir} in HEAD")))?
        else {
            continue;
        };
        if !entry.mode().is_tree() {
            continue;
        }
        if cache_tree_node(cache_tree, &dir).is_some_and(|n| n.id == entry.object_id()) {
            out.clean_dirs.push(format!("{}/", kind.dir()));
            continue;
        }
        let sub = repo
            .find_tree(entry.object_id())
            .map_err(git_err(format!("{dir} in HEAD")))?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        sub.traverse()
            .breadthfirst(&mut recorder)
            .map_err(git_err(format!("{dir} in HEAD")))?;
        for r in recorder.records {
            if r.mode.is_tree() || r.mode.is_commit() {
                continue;
            }
            let rel = format!("{}/{}", kind.dir(), r.filepath.to_str_lossy());
            if vault::is_page_path(&rel) {
                out.blobs.insert(rel, r.oid);
            }
        }
    }
    Ok(out)
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

fn read_blob(repo: &gix::Repository, id: ObjectId, rel: &str) -> Result<Vec<u8>, StagedError> {
    repo.find_object(id)
        .map(|o| o.detach().data)
        .map_err(git_err(format!("the staged blob of {rel}")))
}

/// Load the staged pages of the vault at `vault` and what the cross-page checks need.
pub fn load(vault: &Path) -> Result<StagedSet, StagedError> {
    let repo = gix::discover(vault).map_err(|e| StagedError::NoRepository {
        path: vault.to_path_buf(),
        message: e.to_string(),
    })?;
    let (workdir, prefix) = locate(&repo, vault)?;
    let index = repo.index_or_empty().map_err(git_err("the git index"))?;
    let stat_options = repo
        .stat_options()
        .map_err(git_err("core.* stat options"))?;
    let head = head_pages(&repo, &prefix, index.tree())?;

    // Index pages under the vault (stage 0 only: conflicted paths cannot be committed).
    let timestamp = index.timestamp();
    let mut entries: Vec<(IndexPage, bool)> = Vec::new();
    for entry in index.entries() {
        if entry.stage() != Stage::Unconflicted || entry.mode == Mode::COMMIT {
            continue;
        }
        let path = entry.path(&index);
        let Ok(path) = path.to_str() else { continue };
        let Some(rel) = path.strip_prefix(prefix.as_str()) else {
            continue;
        };
        if !vault::is_page_path(rel) {
            continue;
        }
        let changed = !head.is_clean(rel) && head.blobs.get(rel) != Some(&entry.id);
        entries.push((
            IndexPage {
                rel: rel.to_string(),
                id: entry.id,
                symlink: entry.mode == Mode::SYMLINK,
                stat: entry.stat,
            },
            changed,
        ));
    }

    let mut set = StagedSet {
        prefix: prefix.clone(),
        ..Default::default()
    };
    let in_index: HashSet<&str> = entries.iter().map(|(e, _)| e.rel.as_str()).collect();
    let mut deleted: Vec<String> = head
        .blobs
        .keys()
        .filter(|p| !in_index.contains(p.as_str()))
        .cloned()
        .collect();
    deleted.sort();

    // Parse the staged pages from their blobs.
    let mut needles: Vec<String> = Vec::new();
    for (e, _) in entries.iter().filter(|(_, changed)| *changed) {
        set.changed.insert(e.rel.clone());
        if e.symlink {
            set.errors.push(PageError {
                path: e.rel.clone(),
                line: 1,
                message: "symlink not followed: pages must be regular files inside the vault"
                    .into(),
            });
            continue;
        }
        let bytes = read_blob(&repo, e.id, &e.rel)?;
        match wiki_parse::parse_page(&e.rel, &bytes) {
            Ok(page) => {
                needles.extend(page.summary.id.clone());
                needles.extend(page.summary.claims.iter().filter_map(|c| c.id.clone()));
                set.pages.push(page.info);
            }
            Err(err) => set.errors.push(err),
        }
    }
    // Names by which other pages may link to a deleted page.
    let mut link_needles: Vec<String> = Vec::new();
    for d in &deleted {
        link_needles.push(wiki_parse::page::file_stem(d).to_string());
    }
    set.deleted = deleted;
    needles.sort();
    needles.dedup();
    link_needles.sort();
    link_needles.dedup();

    if !needles.is_empty() || !link_needles.is_empty() {
        let id_finders: Vec<memchr::memmem::Finder<'_>> = needles
            .iter()
            .map(|n| memchr::memmem::Finder::new(n.as_bytes()))
            .collect();
        let link_finders: Vec<memchr::memmem::Finder<'_>> = link_needles
            .iter()
            .map(|n| memchr::memmem::Finder::new(n.as_bytes()))
            .collect();
        let unchanged: Vec<&IndexPage> = entries
            .iter()
            .filter(|(e, changed)| !changed && !e.symlink)
            .map(|(e, _)| e)
            .collect();
        // Scan clean files on disk in parallel; the rest is read from the object database.
        // Ids and claim ids are declared in frontmatter only: a page whose body alone names
        // them (the dashboards list every claim id) is not parsed for them.
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
        // One open per file: fstat it, and read it only when git's stat data says it is
        // exactly the indexed blob (same size, times, inode; not racily clean).
        let on_disk = |e: &IndexPage| -> Option<Scanned> {
            use std::io::Read;
            let mut file = std::fs::File::open(workdir.join(format!("{prefix}{}", e.rel))).ok()?;
            let meta = gix::index::fs::Metadata::from_file(&file).ok()?;
            let disk = gix::index::entry::Stat::from_fs(&meta).ok()?;
            if !meta.is_file()
                || !e.stat.matches(&disk, stat_options)
                || e.stat.is_racy(timestamp, stat_options)
            {
                return None;
            }
            // The size matches the index: one read, no end-of-file probe.
            let mut bytes = vec![0; usize::try_from(meta.len()).ok()?];
            file.read_exact(&mut bytes).ok()?;
            Some(scan(bytes))
        };
        let scanned: Vec<Option<Scanned>> = unchanged
            .par_iter()
            .map(|e| {
                on_disk(e).map(|mut hit| {
                    if !hit.id_hit && !hit.link_hit {
                        hit.bytes = Vec::new();
                    }
                    hit
                })
            })
            .collect();
        let mut matched: Vec<(usize, Scanned)> = Vec::new();
        for (i, (e, hit)) in unchanged.iter().zip(scanned).enumerate() {
            let hit = match hit {
                Some(hit) => hit,
                None => scan(read_blob(&repo, e.id, &e.rel)?),
            };
            if hit.id_hit || hit.link_hit {
                matched.push((i, hit));
            }
        }
        let parsed: Vec<(Option<PageInfo>, bool, &str)> = matched
            .par_iter()
            .map(|(i, hit)| {
                let rel = unchanged[*i].rel.as_str();
                (
                    wiki_parse::parse_page(rel, &hit.bytes).ok().map(|p| p.info),
                    hit.link_hit,
                    rel,
                )
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
    }
    // Link targets, restricted to the pages whose file stem some linted link names.
    let mut stems: HashSet<String> = HashSet::new();
    for page in &set.pages {
        link_stems(page, &mut stems);
    }
    let named = |p: &&str| stems.contains(wiki_parse::page::file_stem(p));
    set.targets = LinkTargets::new(entries.iter().map(|(e, _)| e.rel.as_str()).filter(named));
    if !set.deleted.is_empty() {
        // HEAD = the index's pages in clean directories plus the listed ones.
        set.head_targets = LinkTargets::new(
            entries
                .iter()
                .map(|(e, _)| e.rel.as_str())
                .filter(|p| head.is_clean(p))
                .chain(head.blobs.keys().map(String::as_str))
                .filter(named),
        );
    }
    Ok(set)
}
