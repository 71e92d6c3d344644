//! The compiled caches (`.openclaw-wiki/cache/agent-digest.json`, `claims.jsonl`) are
//! **derived files**: compile writes them next to the vault's pages, at the paths the original
//! plugin uses, but they are not committed (`.openclaw-wiki/cache/` is git-ignored).
//!
//! Why: on a 10,000-page vault they weigh 30 MB and change with every edit. Committing them made
//! every `wiki apply` hash, compress and store 30 MB (most of a single operation's commit time)
//! and grew the repository by that much per change until the next `git gc`. Like the search
//! index, they are rebuilt from the committed pages by `wiki compile` at any time (a fresh clone
//! runs `wiki compile` once; it makes no commit). `wiki compile --check` (the CI "stale
//! lockfile" check) covers the committed outputs: Related blocks, indexes and dashboards.
//!
//! Where they are written:
//!
//! * for the checked-out branch: `.openclaw-wiki/cache/<file>` in the work tree;
//! * for an agent branch that is not checked out (`--agent ID`): the branch has no work tree, so
//!   they go to `.openclaw-wiki/cache/agents/<ID>/<file>` (same content; `wiki get` reads the
//!   claim ids of `--agent ID` from there).
//!
//! The directory holds a `.gitignore` of `*` (written with the files), so they stay out of git
//! whatever the vault's own `.gitignore` says; `wiki init` also lists the directory there. Vaults
//! made before this change track the two files: the first commit a tool makes on such a branch
//! removes them from git (the files stay on disk, rewritten by the same run).

use std::borrow::Cow;
use std::path::Path;

use wiki_parse::layout::{AGENT_DIGEST_PATH, CLAIMS_PATH};
use wiki_store::{Change, ObjectId, Store};

/// The directory of the derived caches, vault-relative.
pub use wiki_parse::layout::CACHE_DIR;

/// Whether a vault path is a derived cache file.
pub use wiki_parse::layout::is_derived;

/// Where the derived file `path` of the target is written (see
/// [`wiki_parse::layout::cache_location`]).
pub use wiki_parse::layout::cache_location as location;

/// Compile changes split for a commit.
#[derive(Debug, Clone, Default)]
pub struct Prepared<'a> {
    /// What goes into the commit (derived files taken out; their removal from git added when the
    /// branch still tracks them). Borrowed when the derived files are the tail of the changes
    /// (as compile orders them), so a large commit's page texts are not copied.
    pub commit: Cow<'a, [Change]>,
    /// Derived files to write beside the commit ([`Prepared::write`]).
    pub derived: Vec<&'a Change>,
    /// Tracked derived files that the commit removes from git without new content: their
    /// current work-tree bytes, written back after the commit (the commit deletes the file).
    pub restore: Vec<Change>,
}

/// Split `changes`: derived files out of the commit. `tracked` are the derived paths the branch
/// tracks at the commit's base (see [`tracked_at`]): their removal from git joins the commit.
pub fn prepare<'a>(changes: &'a [Change], tracked: &[String]) -> Prepared<'a> {
    let derived: Vec<&Change> = changes.iter().filter(|c| is_derived(&c.path)).collect();
    let tail = changes.len() - derived.len();
    let untrack = !tracked.is_empty() && !changes.is_empty();
    let commit = if !untrack && changes[tail..].iter().all(|c| is_derived(&c.path)) {
        Cow::Borrowed(&changes[..tail])
    } else {
        let mut owned: Vec<Change> = changes
            .iter()
            .filter(|c| !is_derived(&c.path))
            .cloned()
            .collect();
        if untrack {
            owned.extend(tracked.iter().map(|p| Change::delete(p.clone())));
        }
        Cow::Owned(owned)
    };
    Prepared {
        commit,
        derived,
        restore: Vec::new(),
    }
}

/// The derived paths tracked at commit `base` (vaults made before they became derived).
pub fn tracked_at(store: &Store, base: Option<ObjectId>) -> Result<Vec<String>, wiki_store::Error> {
    let Some(base) = base else {
        return Ok(Vec::new());
    };
    Ok(store
        .list_files(&base.to_string(), CACHE_DIR)?
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| is_derived(p))
        .collect())
}

impl<'a> Prepared<'a> {
    /// [`prepare`] with the derived paths tracked at `base`, read from the store.
    /// When the target is the checked-out branch (`checked_out`), tracked derived files the
    /// commit removes without new content keep their bytes on disk ([`Prepared::restore`]).
    pub fn for_commit(
        store: &Store,
        base: Option<ObjectId>,
        checked_out: bool,
        changes: &'a [Change],
    ) -> Result<Prepared<'a>, wiki_store::Error> {
        let tracked = tracked_at(store, base)?;
        let mut prepared = prepare(changes, &tracked);
        if checked_out && !prepared.commit.is_empty() {
            for path in &tracked {
                if prepared.derived.iter().any(|c| &c.path == path) {
                    continue;
                }
                if let Some(bytes) = read_cache_file(&store.vault_dir().join(path)) {
                    prepared.restore.push(Change::write(path.clone(), bytes));
                }
            }
        }
        Ok(prepared)
    }

    /// Write the derived files under `vault_dir` at their [`location`] for `agent` (each one
    /// atomically: temporary file + rename; symbolic links are never followed).
    /// The cache directory gets a `.gitignore` of `*`, so the files stay out of git even in
    /// vaults whose own `.gitignore` predates them.
    pub fn write(&self, vault_dir: &Path, agent: Option<&str>) -> std::io::Result<()> {
        self.stage(vault_dir, agent)?.persist()
    }

    /// The first half of [`Prepared::write`]: every file written under its temporary name, to
    /// be renamed into place by [`Staged::persist`] once the commit they belong to is made
    /// (callers write them while the commit runs; a dropped [`Staged`] removes them).
    pub fn stage(&self, vault_dir: &Path, agent: Option<&str>) -> std::io::Result<Staged> {
        if !self.derived.is_empty() || !self.restore.is_empty() {
            // Covers the agents' sub-directories too.
            wiki_parse::layout::ensure_ignored_dir(vault_dir, CACHE_DIR)?;
        }
        let mut files = Vec::new();
        for c in self.derived.iter().copied().chain(&self.restore) {
            if let Some(bytes) = &c.content {
                let rel = location(&c.path, agent);
                files.push(wiki_parse::layout::stage_derived_file(
                    vault_dir, &rel, bytes,
                )?);
            }
        }
        Ok(Staged { files })
    }
}

/// Derived files written under temporary names ([`Prepared::stage`]).
#[derive(Debug)]
pub struct Staged {
    files: Vec<wiki_parse::layout::StagedFile>,
}

impl Staged {
    /// Rename every file into place.
    pub fn persist(self) -> std::io::Result<()> {
        for file in self.files {
            file.persist()?;
        }
        Ok(())
    }
}

/// Run `commit` while `prepared`'s files are written under temporary names on another thread,
/// then rename them into place if the commit succeeded (they are removed if it failed). Returns
/// the commit's result and, when it succeeded, the outcome of writing the files.
pub fn commit_with_files<T, E>(
    prepared: &Prepared<'_>,
    vault_dir: &Path,
    agent: Option<&str>,
    commit: impl FnOnce() -> Result<T, E>,
) -> Result<(T, std::io::Result<()>), E> {
    let (done, staged) = std::thread::scope(|scope| {
        let staging = scope.spawn(|| prepared.stage(vault_dir, agent));
        let done = commit();
        let staged = staging
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (done, staged)
    });
    let done = done?;
    Ok((done, staged.and_then(Staged::persist)))
}

/// The bytes of a derived file on disk, when it is a regular file (symbolic links are not
/// followed).
pub fn read_cache_file(path: &Path) -> Option<Vec<u8>> {
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    wiki_cli::read::read_bounded(path, wiki_vault::DERIVED_LIMIT).ok()
}

/// Put into `snapshot` (read from `agent`'s branch) the derived files written for it beside the
/// work tree ([`location`]), when the branch does not track them.
pub fn overlay_agent_files(
    snapshot: &mut wiki_vault::Snapshot,
    vault_dir: &Path,
    agent: Option<&str>,
) {
    let mut found = Vec::new();
    for path in [AGENT_DIGEST_PATH, CLAIMS_PATH] {
        if snapshot.get(path).is_none()
            && let Some(bytes) = read_cache_file(&vault_dir.join(location(path, agent)))
        {
            found.push(Change::write(path, bytes));
        }
    }
    snapshot.overlay(&found);
}

/// An agent's first compile of its branch read from git ([`wiki_vault::Snapshot::parse_cache_agent`]):
/// while the agent has neither derived files nor a parse cache of its own, the compile starts
/// from the checked-out branch's parse cache ([`wiki_vault::pagecache::ParseCache::load_for`]),
/// whose label records that branch's derived files. Put those files (the work tree's) into
/// `snapshot`, so that the compile can reuse them (checked against the label first, as always;
/// reuse is keyed by content, so pages where the branches differ are handled as edits) instead
/// of building the digest, the claims and the nine dashboards in full. They are seeded files,
/// not the agent's own ([`wiki_vault::Snapshot::own`]): the compile writes them for the agent even
/// when they stay the same.
pub fn seed_agent_files(snapshot: &mut wiki_vault::Snapshot) {
    let (Some(agent), Some(vault)) = (
        snapshot.parse_cache_agent().map(str::to_string),
        snapshot.parse_cache_vault().map(Path::to_path_buf),
    ) else {
        return;
    };
    let paths = [AGENT_DIGEST_PATH, CLAIMS_PATH];
    if paths.iter().any(|p| snapshot.get(p).is_some())
        || wiki_vault::pagecache::agent_has_cache(&vault, &agent)
    {
        return;
    }
    for path in paths {
        snapshot.insert_worktree_derived(&vault, path);
    }
}

/// The message for derived files that could not be written after `commit` was made: the commit
/// stands (nothing is lost), the caches are stale until the next `wiki compile`.
pub fn write_failure(commit: Option<ObjectId>, e: &std::io::Error) -> String {
    let done = match commit {
        Some(id) => format!("commit {} was made", id.to_hex_with_len(12)),
        None => "nothing was committed".to_string(),
    };
    format!(
        "cannot write the compiled caches under {CACHE_DIR}/: {e}; {done}, and the caches are \
         stale until `wiki compile` succeeds"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        assert_eq!(location(CLAIMS_PATH, None), CLAIMS_PATH);
        assert_eq!(
            location(AGENT_DIGEST_PATH, Some("ops")),
            ".openclaw-wiki/cache/agents/ops/agent-digest.json"
        );
    }

    #[test]
    fn prepare_splits_and_untracks() {
        let changes = vec![
            Change::write("entities/a.md", "a"),
            Change::write(CLAIMS_PATH, "c"),
        ];
        let p = prepare(&changes, &[]);
        assert_eq!(p.commit.len(), 1);
        assert_eq!(p.derived.len(), 1);
        assert!(
            matches!(p.commit, Cow::Borrowed(_)),
            "derived files at the tail: no copy"
        );
        let mixed = vec![
            Change::write(CLAIMS_PATH, "c"),
            Change::write("entities/a.md", "a"),
        ];
        let p = prepare(&mixed, &[]);
        assert!(matches!(p.commit, Cow::Owned(_)));
        assert_eq!(p.commit[0].path, "entities/a.md");
        let tracked = vec![AGENT_DIGEST_PATH.to_string(), CLAIMS_PATH.to_string()];
        let p = prepare(&changes, &tracked);
        let paths: Vec<(&str, bool)> = p
            .commit
            .iter()
            .map(|c| (c.path.as_str(), c.content.is_some()))
            .collect();
        assert_eq!(
            paths,
            [
                ("entities/a.md", true),
                (AGENT_DIGEST_PATH, false),
                (CLAIMS_PATH, false)
            ]
        );
        assert!(prepare(&[], &tracked).commit.is_empty());
    }
}
