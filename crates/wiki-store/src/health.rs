//! Read-only health facts for `wiki status` / `wiki doctor`: what is uncommitted in the vault,
//! and how big the repository's object database is.

use std::path::Path;

use gix::bstr::{BString, ByteSlice};
use gix::status::UntrackedFiles;
use gix::status::index_worktree::Item as WorktreeItem;

use crate::Store;
use crate::error::{GitResultExt, Result};

/// The object database's size: loose objects and packs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectStats {
    /// Loose object files.
    pub loose_objects: u64,
    /// Bytes they take.
    pub loose_bytes: u64,
    /// Pack files (`*.pack`).
    pub packs: u64,
    /// Bytes of the packs and their indexes.
    pub pack_bytes: u64,
}

fn dir_files(dir: &Path, mut each: impl FnMut(&std::ffi::OsStr, u64)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if let Ok(meta) = e.metadata()
            && meta.is_file()
        {
            each(&e.file_name(), meta.len());
        }
    }
}

impl Store {
    /// Vault paths with uncommitted changes in the work tree, as `git status` shows them:
    /// staged, modified, deleted and untracked files (git-ignored files excluded), sorted and
    /// each once. Only paths inside the vault are listed.
    pub fn uncommitted(&self) -> Result<Vec<String>> {
        let repo = self.repo();
        let pattern: Vec<BString> = if self.prefix.is_empty() {
            Vec::new()
        } else {
            vec![BString::from(self.prefix.clone())]
        };
        let iter = repo
            .status(gix::progress::Discard)
            .git_ctx(|| "status".into())?
            .untracked_files(UntrackedFiles::Files)
            .into_iter(pattern)
            .git_ctx(|| "status".into())?;
        let mut paths = Vec::new();
        for item in iter {
            let item = item.git_ctx(|| "status".into())?;
            if let gix::status::Item::IndexWorktree(WorktreeItem::Modification { status, .. }) =
                &item
                && matches!(
                    status,
                    gix_status_like::NeedsUpdate(_) | gix_status_like::IntentToAdd
                )
            {
                continue;
            }
            let location = item.location().to_str_lossy().into_owned();
            if let Some(rel) = location.strip_prefix(self.prefix.as_str()) {
                paths.push(rel.to_string());
            }
        }
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// The size of the object database (loose objects under `objects/xx/`, packs under
    /// `objects/pack/`); unreadable entries are skipped.
    pub fn object_stats(&self) -> ObjectStats {
        let repo = self.repo();
        let objects = repo.objects.store_ref().path().to_path_buf();
        let mut stats = ObjectStats::default();
        for i in 0..=255u8 {
            dir_files(&objects.join(format!("{i:02x}")), |_, len| {
                stats.loose_objects += 1;
                stats.loose_bytes += len;
            });
        }
        dir_files(&objects.join("pack"), |name, len| {
            let name = name.to_string_lossy();
            if name.ends_with(".pack") {
                stats.packs += 1;
                stats.pack_bytes += len;
            } else if name.ends_with(".idx") {
                stats.pack_bytes += len;
            }
        });
        stats
    }
}

/// The index-to-work-tree entry statuses that are not changes.
mod gix_status_like {
    pub use gix::status::plumbing::index_as_worktree::EntryStatus::{IntentToAdd, NeedsUpdate};
}
