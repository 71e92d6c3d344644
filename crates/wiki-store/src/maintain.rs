//! Packing loose objects, so a vault's history stays small.
//!
//! Every commit of a dashboard writes a new blob of the whole file (a 10,000-page vault's
//! `reports/claim-health.md` is ~6 MB), and loose objects are compressed one by one: without
//! packing, each operation would add megabytes to `.git`. git's own `gc --auto` counts loose
//! objects (6,700 by default), which a few hundred large blobs never reach, and the store never
//! runs the git binary anyway.
//!
//! [`Store::pack_loose_objects`] writes every loose object into one new pack and then removes
//! the loose copies (what `git repack -d` without `-a` does). Successive versions of the same
//! path become deltas against each other (found by walking the loose commits reachable from
//! every reference and diffing each against its first parent): the newest version is stored
//! whole, each older one as a delta against the next newer one (at most 50 in a chain), so
//! reading the current files stays cheap. Deltas are checked by applying them before they are
//! written. The pack and its index are fsynced and renamed into place before any loose object
//! is removed; readers that miss a loose object find it in the new pack (git and gix re-scan
//! the pack directory on a miss). Unreachable loose objects are packed whole, not pruned.
//!
//! A commit packs by itself when the loose objects are estimated (from a sample of 16 of the
//! 256 object directories, as git samples one) to exceed 64 MiB or `gc.auto` objects, unless
//! `gc.auto` is 0 or `WIKI_AUTO_PACK=never`; `WIKI_AUTO_PACK=always` packs after every commit.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::error::GitResultExt;
use crate::{Error, Result, Store, VaultLock, delta, pack, read, trace};

/// Loose objects are packed by a commit when they are estimated to take more than this.
const AUTO_PACK_BYTES: u64 = 64 << 20;

/// git's default `gc.auto`.
const DEFAULT_GC_AUTO: i64 = 6700;

/// Longest chain of deltas (git's default `pack.depth`).
const MAX_DEPTH: usize = 50;

/// Blobs smaller than this are stored whole (a delta would save next to nothing).
const MIN_DELTA_SIZE: usize = 256;

/// What [`Store::pack_loose_objects`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackOutcome {
    /// Loose objects written into the pack (and then removed).
    pub objects: usize,
    /// How many of them the pack stores as deltas.
    pub deltas: usize,
    /// Bytes the packed loose object files took on disk.
    pub loose_bytes: u64,
    /// Size of the new pack file.
    pub pack_bytes: u64,
    /// The new pack; `None` when there was no loose object.
    pub pack: Option<PathBuf>,
}

/// When a commit packs loose objects by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Auto { max_objects: Option<u64> },
    Always,
    Never,
}

fn hex_dir(i: usize) -> String {
    format!("{i:02x}")
}

/// Loose object ids (and file sizes) in one fan-out directory.
fn loose_in(objects_dir: &Path, dir: &str, out: &mut Vec<(ObjectId, u64)>) -> Result<()> {
    let path = objects_dir.join(dir);
    let entries = match std::fs::read_dir(&path) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&path, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.len() != 38 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let Ok(id) = ObjectId::from_hex(format!("{dir}{name}").as_bytes()) else {
            continue;
        };
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        out.push((id, size));
    }
    Ok(())
}

impl Store {
    fn objects_dir(repo: &gix::Repository) -> PathBuf {
        repo.objects.store_ref().path().to_path_buf()
    }

    fn auto_pack_policy(&self, repo: &gix::Repository) -> Policy {
        match self
            .env
            .get("WIKI_AUTO_PACK")
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("never" | "0" | "false" | "off") => return Policy::Never,
            Some("always") => return Policy::Always,
            _ => {}
        }
        let gc_auto = repo
            .config_snapshot()
            .integer("gc.auto")
            .unwrap_or(DEFAULT_GC_AUTO);
        if gc_auto == 0 {
            return Policy::Never;
        }
        Policy::Auto {
            max_objects: u64::try_from(gc_auto).ok().filter(|&n| n > 0),
        }
    }

    /// After a commit (lock held): pack the loose objects when the policy says so. Errors are
    /// returned for the caller to report; the commit itself has already succeeded.
    pub(crate) fn auto_pack(&self, repo: &gix::Repository) -> Result<Option<PackOutcome>> {
        let wanted = match self.auto_pack_policy(repo) {
            Policy::Never => false,
            Policy::Always => true,
            Policy::Auto { max_objects } => {
                let objects_dir = Self::objects_dir(repo);
                let mut sample = Vec::new();
                for i in 0..16 {
                    loose_in(&objects_dir, &hex_dir(i * 17), &mut sample)?;
                }
                let count = sample.len() as u64 * 16;
                let bytes = sample.iter().map(|(_, s)| s).sum::<u64>() * 16;
                bytes > AUTO_PACK_BYTES || max_objects.is_some_and(|max| count > max)
            }
        };
        trace::mark("auto-pack check");
        if !wanted {
            return Ok(None);
        }
        let outcome = self.pack_loose(repo)?;
        trace::mark("pack loose objects");
        Ok(Some(outcome))
    }

    /// Pack every loose object of the repository into one new pack and remove the loose copies
    /// (see the module documentation of `maintain`). Takes the vault lock.
    pub fn pack_loose_objects(&self) -> Result<PackOutcome> {
        let _lock = self.lock()?;
        self.pack_loose(&self.repo())
    }

    /// Like [`Store::pack_loose_objects`], for callers that already hold this vault's lock.
    pub fn pack_loose_objects_locked(&self, lock: &VaultLock) -> Result<PackOutcome> {
        self.check_lock(lock)?;
        self.pack_loose(&self.repo())
    }

    fn pack_loose(&self, repo: &gix::Repository) -> Result<PackOutcome> {
        let objects_dir = Self::objects_dir(repo);
        let mut loose = Vec::new();
        for i in 0..256 {
            loose_in(&objects_dir, &hex_dir(i), &mut loose)?;
        }
        if loose.is_empty() {
            return Ok(PackOutcome::default());
        }
        loose.sort();
        let loose_bytes = loose.iter().map(|(_, s)| s).sum();
        let ids: HashSet<ObjectId> = loose.iter().map(|(id, _)| *id).collect();
        let chains = version_chains(repo, &ids)?;
        let in_chain: HashSet<ObjectId> = chains.values().flatten().copied().collect();

        let count = u32::try_from(ids.len()).map_err(|_| {
            Error::io(
                &objects_dir,
                std::io::Error::other("too many loose objects for one pack"),
            )
        })?;
        let mut writer = pack::PackWriter::new(&objects_dir, count)?;
        let read = |id: ObjectId| -> Result<(gix::object::Kind, Vec<u8>)> {
            let object = repo
                .find_object(id)
                .git_ctx(|| format!("read object {id}"))?
                .detach();
            Ok((object.kind, object.data))
        };
        // Everything outside the chains whole.
        for (id, _) in &loose {
            if in_chain.contains(id) {
                continue;
            }
            let (kind, data) = read(*id)?;
            writer.add_whole(*id, pack::entry_type(kind), &data)?;
        }
        let mut deltas = 0;
        for versions in chains.values() {
            // (bytes, offset in the pack, depth of its delta chain)
            let mut base: Option<(Vec<u8>, u64, usize)> = None;
            for &id in versions {
                let (kind, data) = read(id)?;
                let units = match kind {
                    gix::object::Kind::Blob => Some(delta::Units::Lines),
                    gix::object::Kind::Tree => Some(delta::Units::TreeEntries),
                    _ => None,
                };
                let kind = pack::entry_type(kind);
                let as_delta = match (&base, units) {
                    (Some((bytes, offset, depth)), Some(units))
                        if *depth < MAX_DEPTH && data.len() >= MIN_DELTA_SIZE =>
                    {
                        delta::encode(bytes, &data, units, data.len() / 2)
                            .filter(|d| delta::apply(bytes, d).as_deref() == Some(&data[..]))
                            .map(|d| (d, *offset, *depth))
                    }
                    _ => None,
                };
                base = Some(match as_delta {
                    Some((d, base_offset, depth)) => {
                        let offset = writer.add_delta(id, base_offset, &d)?;
                        deltas += 1;
                        (data, offset, depth + 1)
                    }
                    None => {
                        let offset = writer.add_whole(id, kind, &data)?;
                        (data, offset, 0)
                    }
                });
            }
        }
        let pack_bytes = writer.offset() + 20;
        let pack_path = writer.finish()?;
        // Only now, with the pack and its index in place, drop the loose copies.
        for (id, _) in &loose {
            let hex = id.to_hex().to_string();
            let path = objects_dir.join(&hex[..2]).join(&hex[2..]);
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&path, e)),
            }
        }
        Ok(PackOutcome {
            objects: loose.len(),
            deltas,
            loose_bytes,
            pack_bytes,
            pack: Some(pack_path),
        })
    }
}

/// Key of a directory's chain of trees in [`version_chains`] (followed by its path; a NUL
/// cannot occur in a file's path).
const TREE_KEY: &str = "\0tree:";

/// For every path whose successive versions are loose blobs (and every directory whose
/// successive versions are loose trees): those versions, newest first (each object listed once). Found by walking the loose commits reachable from every reference
/// and `HEAD`, each compared with its first parent.
fn version_chains(
    repo: &gix::Repository,
    loose: &HashSet<ObjectId>,
) -> Result<BTreeMap<String, Vec<ObjectId>>> {
    let mut tips: Vec<ObjectId> = Vec::new();
    if let Some(head) = read::head_tip(repo)? {
        tips.push(head);
    }
    let platform = repo
        .references()
        .git_ctx(|| "list references".to_string())?;
    let all = platform.all().git_ctx(|| "list references".to_string())?;
    for reference in all.flatten() {
        let mut reference = reference;
        if let Ok(id) = reference.peel_to_id() {
            tips.push(id.detach());
        }
    }
    let mut chains: BTreeMap<String, Vec<ObjectId>> = BTreeMap::new();
    let mut assigned: HashSet<ObjectId> = HashSet::new();
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut trees: HashMap<ObjectId, ObjectId> = HashMap::new();
    let mut queue: std::collections::VecDeque<ObjectId> = tips.into_iter().collect();
    while let Some(id) = queue.pop_front() {
        if !loose.contains(&id) || !seen.insert(id) {
            continue;
        }
        let Ok(commit) = repo.find_commit(id) else {
            continue; // a loose tag or another kind of object
        };
        let tree = commit
            .tree_id()
            .git_ctx(|| format!("read tree of commit {id}"))?
            .detach();
        let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
        let parent_tree = match parents.first() {
            Some(p) => Some(match trees.get(p) {
                Some(t) => *t,
                None => read::commit_tree(repo, *p)?,
            }),
            None => None,
        };
        trees.insert(id, tree);
        let mut changed = Vec::new();
        if Some(tree) != parent_tree && loose.contains(&tree) {
            changed.push((TREE_KEY.to_string(), tree));
        }
        changed_blobs(repo, Some(tree), parent_tree, "", loose, &mut changed)?;
        for (path, blob) in changed {
            if assigned.insert(blob) {
                chains.entry(path).or_default().push(blob);
            }
        }
        queue.extend(parents);
    }
    Ok(chains)
}

/// Regular files (and directories) of tree `new` whose blob (tree) differs from `old`'s and is
/// loose, as `(path, id)`, directories keyed by [`TREE_KEY`] and their path.
fn changed_blobs(
    repo: &gix::Repository,
    new: Option<ObjectId>,
    old: Option<ObjectId>,
    base: &str,
    loose: &HashSet<ObjectId>,
    out: &mut Vec<(String, ObjectId)>,
) -> Result<()> {
    let Some(new) = new else { return Ok(()) };
    if Some(new) == old {
        return Ok(());
    }
    let new_entries = read::tree_entries(repo, new)?;
    let old_entries = match old {
        Some(old) => read::tree_entries(repo, old)?,
        None => BTreeMap::new(),
    };
    for (name, entry) in new_entries {
        let before = old_entries.get(&name).copied();
        if before.map(|b| b.id) == Some(entry.id) {
            continue;
        }
        let path = read::join(base, &name);
        if entry.kind == EntryKind::Tree {
            if loose.contains(&entry.id) {
                out.push((format!("{TREE_KEY}{path}"), entry.id));
            }
            let old_tree = before.filter(|b| b.kind == EntryKind::Tree).map(|b| b.id);
            changed_blobs(repo, Some(entry.id), old_tree, &path, loose, out)?;
        } else if entry.is_file() && loose.contains(&entry.id) {
            out.push((path, entry.id));
        }
    }
    Ok(())
}
