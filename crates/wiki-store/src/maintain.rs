//! Repository maintenance through git's own tools.
//!
//! Every commit stores each changed file whole as a loose object. Packing them is git's job:
//! after a commit the store asks git's own `gc --auto` question (more loose objects than
//! `gc.auto`, 6,700 by default, estimated from the `objects/17` directory as git does; or more
//! packs than `gc.autoPackLimit`, 50 by default) and, when the answer is yes and `git` is on
//! `PATH`, runs `git gc --auto --quiet` holding the vault lock (writers read objects only while
//! they hold it, so none sees an object move from loose to packed under it). By default that
//! runs in a detached copy of the binary (see [`background`](crate::background)), like git's
//! `gc.autoDetach`; with `gc.autoDetach = false`, or from a binary without the hook, in the
//! committing process. `gc.auto = 0` or `WIKI_AUTO_PACK=never` turns it off;
//! `WIKI_AUTO_PACK=always` runs `git repack -d` after every commit. Without `git` on `PATH`
//! nothing is packed (the repository stays valid, only larger).
//!
//! [`Store::gc`] (the `wiki gc` command) runs `git gc` now, under the vault lock.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, Result, Store, VaultLock, lock};

/// When a commit asks git to pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    /// When git's own `gc --auto` would.
    Auto,
    /// After every commit (`git repack -d`).
    Always,
    Never,
}

/// `git count-objects -v` in numbers: loose objects and packs of a repository.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectCounts {
    /// Loose objects.
    pub loose: u64,
    /// Bytes the loose objects take on disk.
    pub loose_bytes: u64,
    /// Packs.
    pub packs: u64,
    /// Bytes the packs take on disk.
    pub pack_bytes: u64,
}

/// What [`Store::gc`] did: the object counts before and after `git gc`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcOutcome {
    /// Before.
    pub before: ObjectCounts,
    /// After.
    pub after: ObjectCounts,
}

impl GcOutcome {
    /// One line for people: `packed 123 loose objects (1.2 MiB): 1 pack, 300.0 KiB`.
    pub fn summary(&self) -> String {
        if self.before.loose == 0 && self.before.packs <= 1 {
            return "nothing to pack".to_string();
        }
        format!(
            "packed {} loose objects ({}): {} pack{}, {}",
            self.before.loose,
            human_size(self.before.loose_bytes),
            self.after.packs,
            if self.after.packs == 1 { "" } else { "s" },
            human_size(self.after.pack_bytes)
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
    /// What to tell people about the packing that followed the commit, if any: a warning when
    /// it failed (the commit stands, nothing is lost), else where it runs.
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
            .then(|| "packed loose git objects (automatic, after the commit)".to_string())
    }
}

/// What the packing after a commit did ([`Store::auto_pack`]).
#[derive(Debug, Default)]
pub(crate) struct AutoPacked {
    /// Packed in this process.
    pub(crate) packed: bool,
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

/// The `git` executable on `PATH`, if any.
fn git_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(if cfg!(windows) { "git.exe" } else { "git" }))
        .find(|p| p.is_file())
}

/// Entries of a directory (0 when it cannot be read).
fn entries(dir: &Path, keep: impl Fn(&str) -> bool) -> u64 {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| keep(&e.file_name().to_string_lossy()))
            .count() as u64
    })
}

impl Store {
    fn pack_policy(&self, repo: &gix::Repository) -> Policy {
        match self.env.get("WIKI_AUTO_PACK").as_deref() {
            Some("never") => return Policy::Never,
            Some("always") => return Policy::Always,
            _ => {}
        }
        if repo.config_snapshot().integer("gc.auto") == Some(0) {
            Policy::Never
        } else {
            Policy::Auto
        }
    }

    /// git's `gc --auto` test: too many loose objects (sampled from `objects/17`) or packs.
    fn packing_wanted(&self, repo: &gix::Repository) -> bool {
        let config = repo.config_snapshot();
        let objects = repo.objects.store_ref().path().to_path_buf();
        let limit = config.integer("gc.auto").unwrap_or(6700).max(0) as u64;
        if limit > 0 {
            let sampled = entries(&objects.join("17"), |n| n.len() == 38);
            if sampled > limit.div_ceil(256) {
                return true;
            }
        }
        let pack_limit = config.integer("gc.autoPackLimit").unwrap_or(50).max(0) as u64;
        pack_limit > 0 && entries(&objects.join("pack"), |n| n.ends_with(".pack")) > pack_limit
    }

    /// After a commit (vault lock held): have git pack when the policy says so, in a detached
    /// process when this process allows it and `gc.autoDetach` is not false, else here. Errors
    /// are returned for the caller to report; the commit itself has already succeeded.
    pub(crate) fn auto_pack(&self, repo: &gix::Repository) -> Result<AutoPacked> {
        let policy = self.pack_policy(repo);
        if policy == Policy::Never
            || (policy == Policy::Auto && !self.packing_wanted(repo))
            || git_on_path().is_none()
        {
            return Ok(AutoPacked::default());
        }
        let mut done = AutoPacked {
            previous_error: crate::background::take_failure(repo),
            ..AutoPacked::default()
        };
        if crate::background::enabled()
            && repo.config_snapshot().boolean("gc.autoDetach") != Some(false)
        {
            // A detached packer is already waiting for the vault lock (or packing).
            if lock::try_acquire(&pack_lock_path(repo))?.is_none() {
                return Ok(done);
            }
            if let Ok(pid) = crate::background::spawn(&self.vault_dir) {
                done.detached = Some(pid);
                return Ok(done);
            }
        }
        self.run_git_pack(policy, repo)?;
        done.packed = true;
        Ok(done)
    }

    /// The work of a detached packer: hold the pack lock (another packer holds it: nothing to
    /// do), wait for the vault lock like a writer, and pack when the policy still asks for it.
    /// When writers keep the vault lock busy past the lock timeout, give up quietly: the next
    /// commit starts another packer.
    pub(crate) fn pack_detached(&self) -> Result<()> {
        let repo = self.repo();
        let Some(pack_lock) = lock::try_acquire(&pack_lock_path(&repo))? else {
            return Ok(());
        };
        let vault_lock = match self.lock() {
            Ok(lock) => lock,
            Err(Error::LockTimeout { .. }) => return Ok(()),
            Err(e) => return Err(e),
        };
        let packed = match self.pack_policy(&repo) {
            Policy::Never => Ok(()),
            Policy::Auto if !self.packing_wanted(&repo) => Ok(()),
            policy => self.run_git_pack(policy, &repo),
        };
        // The pack lock goes first: a commit made as soon as the vault lock is free then finds
        // no packer and starts its own, so no commit's request to pack is dropped.
        drop(pack_lock);
        drop(vault_lock);
        packed
    }

    /// `git gc --auto` (or `git repack -d` for [`Policy::Always`]) in the repository, without
    /// git detaching again (the caller holds the vault lock for it). After `repack -d`, which
    /// only adds a pack, the packs are merged as `gc --auto` would once they pass
    /// `gc.autoPackLimit`, so packing after every commit keeps their number bounded.
    fn run_git_pack(&self, policy: Policy, repo: &gix::Repository) -> Result<()> {
        const GC_AUTO: &[&str] = &["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"];
        if policy == Policy::Always {
            self.git(&["repack", "-d", "-q"])?;
            if !self.packing_wanted(repo) {
                return Ok(());
            }
        }
        self.git(GC_AUTO).map(|_| ())
    }

    /// Run `git ARGS` in the work directory; its stdout.
    fn git(&self, args: &[&str]) -> Result<String> {
        let git = git_on_path().ok_or_else(|| Error::Maintenance {
            command: format!("git {}", args.join(" ")),
            message: "git is not on PATH".to_string(),
        })?;
        let out = Command::new(git)
            .args(args)
            .current_dir(&self.work_dir)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| Error::Maintenance {
                command: format!("git {}", args.join(" ")),
                message: e.to_string(),
            })?;
        if !out.status.success() {
            return Err(Error::Maintenance {
                command: format!("git {}", args.join(" ")),
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Loose objects and packs of the repository (`git count-objects -v`).
    pub fn object_counts(&self) -> Result<ObjectCounts> {
        let text = self.git(&["count-objects", "-v"])?;
        let mut c = ObjectCounts::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(": ") else {
                continue;
            };
            let n: u64 = value.trim().parse().unwrap_or(0);
            match key {
                "count" => c.loose = n,
                "size" => c.loose_bytes = n * 1024,
                "packs" => c.packs = n,
                "size-pack" => c.pack_bytes = n * 1024,
                _ => {}
            }
        }
        Ok(c)
    }

    /// `git gc` now, holding the vault lock (takes it).
    pub fn gc(&self) -> Result<GcOutcome> {
        let lock = self.lock()?;
        self.gc_locked(&lock)
    }

    /// [`Store::gc`] for a caller that holds the vault lock.
    pub fn gc_locked(&self, _lock: &VaultLock) -> Result<GcOutcome> {
        let before = self.object_counts()?;
        self.git(&["-c", "gc.autoDetach=false", "gc", "--quiet"])?;
        let after = self.object_counts()?;
        Ok(GcOutcome { before, after })
    }
}
