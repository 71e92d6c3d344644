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
//! [`Store::repack_objects`] also merges every pack except the largest one (and packs with a
//! `.keep`, `.promisor` or `.mtimes` file) into the new pack and then removes them (index
//! first), so the number of packs stays small: each pack is one more index for every object
//! lookup, and gix sizes its table of pack indices when a repository is opened.
//!
//! A commit packs by itself when the loose objects are estimated (from a sample of 16 of the
//! 256 object directories, as git samples one) to take more than 64 MiB, unless `gc.auto` is 0
//! or `WIKI_AUTO_PACK=never`, in a detached process when the binary allows it (see
//! [`background`](crate::background)) and `gc.autoDetach` is not false; it merges packs too
//! (those of at most 32 MiB) when that would leave more than `gc.autoPackLimit` (50) packs.
//! `WIKI_AUTO_PACK=always` packs after every commit. Every packing holds the vault lock (a
//! detached packer waits for it like a writer): writers read objects only while holding it, so
//! none reads a loose object or pack as it is removed. git's own trigger, a count of loose objects, is left to git (`git commit` runs
//! `git gc --auto` in the background): a bulk `git add -A && git commit` of a 10,000-page vault
//! leaves 10,000 small loose objects, and packing them in the next `wiki compile` would add a
//! second to it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::error::GitResultExt;
use crate::{Error, Result, Store, VaultLock, delta, lock, pack, read, segmented, trace};

/// Loose objects are packed by a commit when they are estimated to take more than this.
const AUTO_PACK_BYTES: u64 = 64 << 20;

/// git's default `gc.autoPackLimit`: more packs than this are merged.
const DEFAULT_PACK_LIMIT: i64 = 50;

/// Automatic merging leaves packs larger than this alone (a repository the vault lives in may
/// have large packs of its own: merging them is `git gc`'s business, not a commit's).
const AUTO_MERGE_MAX_PACK_BYTES: u64 = 32 << 20;

/// Longest chain of deltas (git's default `pack.depth`).
const MAX_DEPTH: usize = 50;

/// Blobs smaller than this are stored whole (a delta would save next to nothing).
const MIN_DELTA_SIZE: usize = 256;

/// What [`Store::pack_loose_objects`] or [`Store::repack_objects`] did.
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
    /// Earlier packs whose objects went into the new pack (and that were then removed).
    pub packs_merged: usize,
    /// The new pack; `None` when there was nothing to pack.
    pub pack: Option<PathBuf>,
}

impl PackOutcome {
    /// One line for people: `packed N objects (D as deltas, M packs merged): 178.3 MiB of loose
    /// objects -> 8.8 MiB pack`, or `nothing to pack`.
    pub fn summary(&self) -> String {
        if self.objects == 0 {
            return "nothing to pack".to_string();
        }
        format!(
            "packed {} objects ({} as deltas, {} packs merged): {} of loose objects -> {} pack",
            self.objects,
            self.deltas,
            self.packs_merged,
            human_size(self.loose_bytes),
            human_size(self.pack_bytes)
        )
    }
}

/// `812 B`, `12.3 KiB`, `8.8 MiB`, `1.2 GiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

impl crate::CommitOutcome {
    /// What to tell people about the packing that followed the commit, if it ran: a warning
    /// when it failed (the commit stands, nothing is lost), else its [`PackOutcome::summary`]
    /// (an operation that packed took longer; git prints a line too when it packs).
    pub fn packing_message(&self) -> Option<String> {
        if let Some(e) = &self.pack_error {
            return Some(format!(
                "warning: could not pack loose git objects after the commit (nothing lost; run `wiki gc` to retry): {e}"
            ));
        }
        if let Some(pid) = self.pack_detached {
            return Some(format!(
                "packing loose git objects in the background (process {pid}; `wiki gc` packs in the foreground)"
            ));
        }
        self.packed
            .as_ref()
            .filter(|p| p.objects > 0)
            .map(|p| format!("{} (automatic, after the commit)", p.summary()))
    }
}

/// What the packing after a commit did ([`Store::auto_pack`]).
#[derive(Debug, Default)]
pub(crate) struct AutoPacked {
    /// Packed in this process.
    pub(crate) packed: Option<PackOutcome>,
    /// The process id of the detached packer started.
    pub(crate) detached: Option<u32>,
    /// What an earlier detached packer reported when it failed.
    pub(crate) previous_error: Option<String>,
}

/// The lock a detached packer holds from its start (in the repository's common git directory):
/// commits start no second one while it is held.
pub(crate) fn pack_lock_path(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join(lock::PACK_LOCK_NAME)
}

/// When a commit packs loose objects by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// When the loose objects are estimated to exceed 64 MiB.
    Auto,
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

/// Remove the file at `path`; one already gone is fine.
fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// The files of one pack.
struct PackFiles {
    idx: PathBuf,
    pack: PathBuf,
    /// Size of the `.pack` file.
    bytes: u64,
}

/// The packs of `objects_dir/pack` that may be merged: an index with its pack, not a
/// temporary file, and none of git's markers for packs to leave alone (`.keep`; `.promisor`, a
/// partial clone's; `.mtimes`, a cruft pack of unreachable objects).
fn packs_in(objects_dir: &Path) -> Vec<PackFiles> {
    let dir = objects_dir.join("pack");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut packs: Vec<PackFiles> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let stem = name.strip_prefix("pack-")?.strip_suffix(".idx")?;
            let pack = dir.join(format!("pack-{stem}.pack"));
            if ["keep", "promisor", "mtimes"]
                .iter()
                .any(|ext| dir.join(format!("pack-{stem}.{ext}")).exists())
            {
                return None;
            }
            let bytes = std::fs::metadata(&pack).ok()?.len();
            Some(PackFiles {
                idx: entry.path(),
                pack,
                bytes,
            })
        })
        .collect();
    packs.sort_by(|a, b| a.idx.cmp(&b.idx));
    packs
}

impl Store {
    fn objects_dir(repo: &gix::Repository) -> PathBuf {
        repo.objects.store_ref().path().to_path_buf()
    }

    /// When to pack, and how many packs at most to leave (`None`: no limit).
    fn auto_pack_policy(&self, repo: &gix::Repository) -> (Policy, Option<usize>) {
        let pack_limit = repo
            .config_snapshot()
            .integer("gc.autoPackLimit")
            .unwrap_or(DEFAULT_PACK_LIMIT);
        let max_packs = usize::try_from(pack_limit).ok().filter(|&n| n > 0);
        let policy = match self
            .env
            .get("WIKI_AUTO_PACK")
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("never" | "0" | "false" | "off") => Policy::Never,
            Some("always") => Policy::Always,
            // `gc.auto = 0`: the user turned automatic packing off.
            _ if repo.config_snapshot().integer("gc.auto") == Some(0) => Policy::Never,
            _ => Policy::Auto,
        };
        (policy, max_packs)
    }

    /// Whether the policy asks for packing now (the loose objects' size estimate for `Auto`).
    fn packing_wanted(&self, repo: &gix::Repository) -> Result<bool> {
        let objects_dir = Self::objects_dir(repo);
        Ok(match self.auto_pack_policy(repo).0 {
            Policy::Never => false,
            Policy::Always => true,
            Policy::Auto => {
                let mut sample = Vec::new();
                for i in 0..16 {
                    loose_in(&objects_dir, &hex_dir(i * 17), &mut sample)?;
                }
                sample.iter().map(|(_, s)| s).sum::<u64>() * 16 > AUTO_PACK_BYTES
            }
        })
    }

    /// Whether packs are to be merged too, and up to which size (more packs than
    /// `gc.autoPackLimit`, counting the one packing makes).
    fn auto_merge(&self, repo: &gix::Repository) -> Option<u64> {
        let (_, max_packs) = self.auto_pack_policy(repo);
        max_packs
            .is_some_and(|max| packs_in(&Self::objects_dir(repo)).len() + 1 > max)
            .then_some(AUTO_MERGE_MAX_PACK_BYTES)
    }

    /// After a commit (vault lock held): pack the loose objects when the policy says so, in a
    /// detached process when this process allows it (see [`background`](crate::background))
    /// and `gc.autoDetach` is not false, else here. Errors are returned for the caller to report;
    /// the commit itself has already succeeded.
    pub(crate) fn auto_pack(&self, repo: &gix::Repository) -> Result<AutoPacked> {
        let wanted = self.packing_wanted(repo)?;
        trace::mark("auto-pack check");
        if !wanted {
            return Ok(AutoPacked::default());
        }
        // A detached packer's failure is told by the next commit that packs.
        let mut done = AutoPacked {
            previous_error: crate::background::take_failure(repo),
            ..AutoPacked::default()
        };
        if crate::background::enabled()
            && repo.config_snapshot().boolean("gc.autoDetach") != Some(false)
        {
            // A detached packer is already waiting for the vault lock (or packing): it, or
            // the next commit, takes care of it.
            if lock::try_acquire(&pack_lock_path(repo))?.is_none() {
                return Ok(done);
            }
            // Without an executable to run (spawn failed), pack here.
            if let Ok(pid) = crate::background::spawn(&self.vault_dir) {
                done.detached = Some(pid);
                return Ok(done);
            }
        }
        let merge = self.auto_merge(repo);
        done.packed = Some(self.repack(repo, merge)?);
        trace::mark("pack loose objects");
        Ok(done)
    }

    /// The work of a detached packer (see [`background`](crate::background)): hold the pack
    /// lock (another packer holds it: nothing to do), wait for the vault lock like a writer
    /// (objects are removed only while no writer reads them, as with every packing), and pack
    /// when the policy still asks for it (an earlier packer may have done it meanwhile). When
    /// writers keep the vault lock busy past the lock timeout, give up quietly: the next commit
    /// starts another packer.
    pub(crate) fn pack_detached(&self) -> Result<Option<PackOutcome>> {
        let repo = self.repo();
        let Some(_pack_lock) = lock::try_acquire(&pack_lock_path(&repo))? else {
            return Ok(None);
        };
        // Started only to delete retired files, or packed meanwhile: no need to wait.
        if !self.packing_wanted(&repo)? {
            return Ok(None);
        }
        let _vault_lock = match self.lock() {
            Ok(lock) => lock,
            Err(Error::LockTimeout { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if !self.packing_wanted(&repo)? {
            return Ok(None);
        }
        let merge = self.auto_merge(&repo);
        self.repack(&repo, merge).map(Some)
    }

    /// Pack every loose object of the repository into one new pack and remove the loose copies
    /// (see the module documentation of `maintain`). Takes the vault lock.
    pub fn pack_loose_objects(&self) -> Result<PackOutcome> {
        let _lock = self.lock()?;
        self.repack(&self.repo(), None)
    }

    /// Like [`Store::pack_loose_objects`], for callers that already hold this vault's lock.
    pub fn pack_loose_objects_locked(&self, lock: &VaultLock) -> Result<PackOutcome> {
        self.check_lock(lock)?;
        self.repack(&self.repo(), None)
    }

    /// [`Store::pack_loose_objects`], and merge every pack except the largest one (and those
    /// with a `.keep`, `.promisor` or `.mtimes` file) into the new pack too, removing them once
    /// it is in place: the repository is left with at most two packs besides those. Takes the
    /// vault lock.
    pub fn repack_objects(&self) -> Result<PackOutcome> {
        let _lock = self.lock()?;
        self.repack(&self.repo(), Some(u64::MAX))
    }

    /// Pack the loose objects; with `merge_packs`, also merge the packs of at most that many
    /// bytes except the largest pack. The caller holds the vault lock: writers read objects only
    /// while they hold it, so none reads a loose object or pack as it is removed.
    fn repack(&self, repo: &gix::Repository, merge_packs: Option<u64>) -> Result<PackOutcome> {
        let objects_dir = Self::objects_dir(repo);
        // Left by a killed packer or bulk commit: no live writer owns them (lock held).
        pack::remove_stale_temporaries(&objects_dir);
        let mut loose = Vec::new();
        for i in 0..256 {
            loose_in(&objects_dir, &hex_dir(i), &mut loose)?;
        }
        let mut merged: Vec<PackFiles> = Vec::new();
        if let Some(max_bytes) = merge_packs {
            merged = packs_in(&objects_dir);
            // The largest pack (usually the vault's first compile) stays as it is.
            if let Some((largest, _)) = merged.iter().enumerate().max_by_key(|(_, p)| p.bytes) {
                merged.remove(largest);
            }
            merged.retain(|p| p.bytes <= max_bytes);
            if merged.len() < 2 && loose.is_empty() {
                merged.clear();
            }
        }
        if loose.is_empty() && merged.is_empty() {
            return Ok(PackOutcome::default());
        }
        let loose_bytes = loose.iter().map(|(_, s)| s).sum();
        let mut ids: Vec<ObjectId> = loose.iter().map(|(id, _)| *id).collect();
        for pack in &merged {
            let index = gix::odb::pack::index::File::at(&pack.idx, gix::hash::Kind::Sha1)
                .map_err(|e| Error::io(&pack.idx, std::io::Error::other(e.to_string())))?;
            ids.extend(index.iter().map(|e| e.oid));
        }
        ids.sort();
        ids.dedup();
        let ids_set: HashSet<ObjectId> = ids.iter().copied().collect();
        let chains = version_chains(repo, &ids_set)?;
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
        for id in &ids {
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
        // Only now, with the pack and its index in place, drop the loose copies and the merged
        // packs (index first: a pack is found through its index).
        for (id, _) in &loose {
            remove_if_present(&pack::loose_path(&objects_dir, id))?;
        }
        // Every table describes a loose object that is now packed: no longer of use.
        segmented::remove_tables(&objects_dir);
        for pack in &merged {
            for path in [&pack.idx, &pack.pack]
                .into_iter()
                .cloned()
                .chain(["rev", "bitmap"].map(|ext| pack.pack.with_extension(ext)))
            {
                remove_if_present(&path)?;
            }
        }
        Ok(PackOutcome {
            objects: ids.len(),
            deltas,
            loose_bytes,
            pack_bytes,
            packs_merged: merged.len(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_people() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1024), "1.0 KiB");
        assert_eq!(human_size(12_600), "12.3 KiB");
        assert_eq!(human_size(9_227_469), "8.8 MiB");
        assert_eq!(human_size(5 << 40), "5120.0 GiB");
        let done = PackOutcome {
            objects: 2180,
            deltas: 1705,
            loose_bytes: 186_963_148,
            pack_bytes: 9_227_469,
            packs_merged: 0,
            pack: None,
        };
        assert_eq!(
            done.summary(),
            "packed 2180 objects (1705 as deltas, 0 packs merged): 178.3 MiB of loose objects -> 8.8 MiB pack"
        );
        assert_eq!(PackOutcome::default().summary(), "nothing to pack");
    }
}
