//! A work-tree index kept in memory and current by file events, for long-running processes
//! (`wiki mcp`, the search server).
//!
//! [`LiveTree::refresh`] brings the index up to date with the vault's work tree before each
//! request, doing only the work the changes need:
//!
//! * no event since the last request (and every directory watched): nothing at all — no
//!   listing, no `statx`;
//! * events naming pages: those pages are stat-ed again and re-read
//!   ([`store::open_listed`] with them as forced, so an in-place write that keeps the size and
//!   the modification time is still seen); a created page is added, a removed one dropped;
//! * a rescan ([`Drained::rescan`]: a directory created, deleted or moved, a queue overflow),
//!   no index yet, a watch that could not be added, `rebuild`, or no file events on this
//!   platform: the watches are re-established and then the whole work tree is listed, as a
//!   plain search does ([`crate::sources::WorkTree`], the refresh rule of [`store::open`],
//!   racily clean entries included).
//!
//! The stored documents of the segments the old and the new index share are carried over
//! ([`Index::keep_decoded`]). See [`crate::watch`] for what file events do not report.

use std::path::{Path, PathBuf};

use crate::sources::{self, WorkTree};
use crate::store::{self, Index, Options, Source, SourceFile};
use crate::watch::{Drained, TreeWatch};
use crate::{Error, View};

/// The work-tree index of one vault (see the module docs).
pub struct LiveTree {
    source: WorkTree,
    dir: PathBuf,
    /// `None`: no file events here; every refresh lists.
    watch: Option<TreeWatch>,
    /// The listing as last refreshed, sorted by path.
    files: Vec<SourceFile>,
    index: Option<Index>,
}

impl LiveTree {
    /// The work tree of `vault`, not read yet (the first [`refresh`](Self::refresh) lists it).
    pub fn new(vault: &Path) -> LiveTree {
        LiveTree {
            source: WorkTree {
                vault: vault.to_path_buf(),
            },
            dir: crate::wiki_index_dir(vault, &View::WorkTree),
            watch: TreeWatch::new(vault).ok(),
            files: Vec::new(),
            index: None,
        }
    }

    /// The index as last refreshed.
    pub fn index(&self) -> Option<&Index> {
        self.index.as_ref()
    }

    /// Drop the index: the next refresh starts over with a full listing.
    pub fn forget(&mut self) {
        self.index = None;
    }

    /// Pages in the listing as last refreshed.
    pub fn pages(&self) -> usize {
        self.files.len()
    }

    /// Directories watched.
    pub fn watches(&self) -> usize {
        self.watch.as_ref().map_or(0, TreeWatch::len)
    }

    /// Bring the index up to date with the work tree (`opts.rebuild`: rebuild it from the
    /// pages).
    pub fn refresh(&mut self, opts: &Options) -> Result<&Index, Error> {
        let events = match &mut self.watch {
            Some(w) => w.drain(),
            None => Drained::default(),
        };
        self.apply(events, opts)?;
        self.index
            .as_ref()
            .ok_or_else(|| Error::Corrupt(self.dir.clone(), "search index vanished".into()))
    }

    /// Whether `events` can be trusted alone (else the work tree is listed).
    fn events_suffice(&self, events: &Drained, opts: &Options) -> bool {
        !events.rescan
            && !opts.rebuild
            && self.index.is_some()
            && self.watch.as_ref().is_some_and(TreeWatch::complete)
    }

    /// Refresh for a batch of events (see the module docs).
    pub(crate) fn apply(&mut self, events: Drained, opts: &Options) -> Result<(), Error> {
        let changed: Vec<String> = if self.events_suffice(&events, opts) {
            if events.changed.is_empty() {
                return Ok(());
            }
            let changed: Vec<String> = events.changed.into_iter().collect();
            self.restat(&changed);
            changed
        } else {
            if let Some(w) = &mut self.watch {
                w.rewatch();
            }
            self.files = self.source.list()?;
            if !opts.rebuild
                && let Some(kept) = &self.index
                && store::is_current(&kept.manifest, &self.files)
            {
                return Ok(());
            }
            Vec::new()
        };
        // Without an index the next request starts over with a full listing.
        let previous = self.index.take();
        let mut index = store::open_listed(&self.dir, &self.source, &self.files, &changed, opts)?;
        index.keep_decoded(if opts.rebuild {
            None
        } else {
            previous.as_ref()
        })?;
        self.index = Some(index);
        Ok(())
    }

    /// Stat the pages events named again, updating the listing (added, changed, removed).
    fn restat(&mut self, changed: &[String]) {
        for path in changed {
            let now = sources::stat_page(&self.source.vault, path);
            match (
                self.files.binary_search_by(|f| f.path.as_str().cmp(path)),
                now,
            ) {
                (Ok(i), Some(f)) => self.files[i] = f,
                (Ok(i), None) => {
                    self.files.remove(i);
                }
                (Err(i), Some(f)) => self.files.insert(i, f),
                (Err(_), None) => {}
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            rebuild: false,
            program: "test".into(),
            no_refresh: false,
        }
    }

    fn paths(t: &LiveTree) -> Vec<&str> {
        t.files.iter().map(|f| f.path.as_str()).collect()
    }

    /// A queue overflow falls back to the full listing: an edit whose event was lost is still
    /// found (its stat data changed), and the watches are back.
    #[test]
    fn overflow_falls_back_to_the_full_listing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".openclaw-wiki")).unwrap();
        std::fs::create_dir_all(root.join("concepts/team")).unwrap();
        std::fs::write(root.join("concepts/a.md"), "# Alpha\n\nfirst words\n").unwrap();
        let mut t = LiveTree::new(root);
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md"]);
        assert_eq!(t.watches(), 3, "root, concepts, concepts/team");
        // Lost events: change files, throw the queue away, then report an overflow.
        std::fs::write(root.join("concepts/team/b.md"), "# Beta\n\nsecond words\n").unwrap();
        std::fs::write(
            root.join("concepts/a.md"),
            "# Alpha\n\nchanged text, longer\n",
        )
        .unwrap();
        let _ = t.watch.as_mut().unwrap().drain();
        t.apply(Drained::default(), &opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md"], "events lost, nothing seen");
        let overflow = Drained {
            rescan: true,
            ..Drained::default()
        };
        t.apply(overflow, &opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md", "concepts/team/b.md"]);
        assert_eq!(t.watches(), 3);
        let a = t.index().unwrap().entry("concepts/a.md").unwrap();
        assert_eq!(
            a.blob,
            crate::codec::blob_id(b"# Alpha\n\nchanged text, longer\n")
        );
        // Without an overflow, an event names the page and only it is refreshed.
        std::fs::remove_file(root.join("concepts/team/b.md")).unwrap();
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md"]);
    }

    /// A real queue overflow (more events than the kernel queues, none of them read): the page
    /// created after it, whose event was dropped, is found by the listing the overflow asks for.
    #[test]
    fn a_real_queue_overflow_is_followed_by_a_listing() {
        let max: u64 = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("concepts")).unwrap();
        std::fs::write(root.join("concepts/a.md"), "# A\n\nalpha\n").unwrap();
        std::fs::write(root.join("concepts/b.md"), "# B\n\nbeta\n").unwrap();
        let mut t = LiveTree::new(root);
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md", "concepts/b.md"]);
        // Writes to two pages in turn: consecutive events differ, so none is merged.
        let a = std::fs::OpenOptions::new()
            .write(true)
            .open(root.join("concepts/a.md"))
            .unwrap();
        let b = std::fs::OpenOptions::new()
            .write(true)
            .open(root.join("concepts/b.md"))
            .unwrap();
        for i in 0..=max {
            let f = if i % 2 == 0 { &a } else { &b };
            std::os::unix::fs::FileExt::write_at(f, b"#", 0).unwrap();
        }
        std::fs::write(root.join("concepts/c.md"), "# C\n\ngamma\n").unwrap();
        let events = t.watch.as_mut().unwrap().drain();
        assert!(events.rescan, "the queue overflowed");
        assert!(
            !events.changed.contains("concepts/c.md"),
            "its event was dropped"
        );
        t.apply(events, &opts()).unwrap();
        assert_eq!(
            paths(&t),
            ["concepts/a.md", "concepts/b.md", "concepts/c.md"]
        );
        // The watches are back: the next page is seen through its event.
        std::fs::write(root.join("concepts/d.md"), "# D\n\ndelta\n").unwrap();
        t.refresh(&opts()).unwrap();
        assert_eq!(t.pages(), 4);
    }

    /// Directories replaced by others of the same name (a sub-directory, a page directory, the
    /// vault itself) are listed again and watched; the old ones, moved aside, are not.
    #[test]
    fn replaced_directories_are_listed_and_watched_again() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("vault");
        let w = |rel: &str, text: &str| crate::testutil::put(&root, rel, text);
        w("concepts/a.md", "# A\n");
        w("concepts/team/b.md", "# B\n");
        let mut t = LiveTree::new(&root);
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md", "concepts/team/b.md"]);
        // A sub-directory moved aside (hidden) and another put in its place.
        std::fs::rename(root.join("concepts/team"), root.join("concepts/.team-old")).unwrap();
        w("concepts/team/c.md", "# C\n");
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/a.md", "concepts/team/c.md"]);
        w("concepts/team/d.md", "# D\n");
        w("concepts/.team-old/e.md", "# E\n");
        t.refresh(&opts()).unwrap();
        assert_eq!(
            paths(&t),
            ["concepts/a.md", "concepts/team/c.md", "concepts/team/d.md"]
        );
        // A page directory replaced.
        std::fs::rename(root.join("concepts"), base.path().join("concepts-old")).unwrap();
        w("concepts/f.md", "# F\n");
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/f.md"]);
        w("concepts-old/g.md", "# G\n");
        w("concepts/h.md", "# H\n");
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["concepts/f.md", "concepts/h.md"]);
        // The vault itself moved away (an error), then another vault at its path.
        std::fs::rename(&root, base.path().join("vault-old")).unwrap();
        assert!(matches!(
            t.refresh(&opts()),
            Err(Error::Vault(wiki_vault::VaultError::Missing(_)))
        ));
        w("entities/i.md", "# I\n");
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["entities/i.md"]);
        w("entities/j.md", "# J\n");
        w("../vault-old/entities/k.md", "# K\n");
        t.refresh(&opts()).unwrap();
        assert_eq!(paths(&t), ["entities/i.md", "entities/j.md"]);
    }

    /// An in-place write that keeps the size and the modification time is seen by the next
    /// refresh, through its event.
    #[test]
    fn same_size_same_mtime_write_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".openclaw-wiki")).unwrap();
        std::fs::create_dir_all(root.join("entities")).unwrap();
        let page = root.join("entities/a.md");
        std::fs::write(&page, "# Alpha\n\nkiwi\n").unwrap();
        let mtime = std::fs::metadata(&page).unwrap().modified().unwrap();
        let mut t = LiveTree::new(root);
        t.refresh(&opts()).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&page).unwrap();
        std::os::unix::fs::FileExt::write_at(&f, b"pear", 9).unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        let blob = t
            .refresh(&opts())
            .unwrap()
            .entry("entities/a.md")
            .unwrap()
            .blob;
        assert_eq!(blob, crate::codec::blob_id(b"# Alpha\n\npear\n"));
    }
}
