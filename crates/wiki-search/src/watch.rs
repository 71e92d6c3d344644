//! Which pages of a vault work tree changed since the last look, learnt from file events
//! (inotify, Linux) instead of listing and `statx`-ing every page.
//!
//! A [`TreeWatch`] watches the vault root and every page directory the listing walks
//! (recursively, hidden directories, symbolic links and `.openclaw-wiki`/`.git` excluded) for
//! `IN_MODIFY`, `IN_CLOSE_WRITE`, `IN_ATTRIB`, `IN_CREATE`, `IN_DELETE`, `IN_MOVED_FROM/TO`,
//! `IN_DELETE_SELF` and `IN_MOVE_SELF`. The kernel queues an event during the system call that
//! changes the file, so a write that completed before a request arrived is in the queue when
//! [`TreeWatch::drain`] reads it (without blocking). The result ([`Drained`]) names the pages
//! the events were about, or asks for a rescan: a directory was created, deleted or moved (its
//! watches must be re-established and the whole tree listed, since a page may have been created
//! in it before its watch existed; the attributes of a directory changed, which may make it
//! readable or not to the listing; the vault directory itself was deleted or moved, so the path
//! may now name another directory or none), the queue overflowed (`IN_Q_OVERFLOW`), or reading
//! it failed.
//! A watch that cannot be added ([`TreeWatch::complete`] false) means every look must list.
//!
//! Not seen by inotify: writes through a shared `mmap`, changes made on another machine of a
//! network file system, and edits through a hard link that lives outside the watched
//! directories. [`TreeWatch::new`] fails (and callers list every time) for a vault on a network,
//! cluster or FUSE file system, and elsewhere than on Linux.

use std::collections::BTreeSet;

/// What a batch of events asks for.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Drained {
    /// Pages named by events (vault-relative).
    pub changed: BTreeSet<String>,
    /// Watches must be re-established and the whole work tree listed (a directory was created,
    /// deleted, moved or had its attributes changed; the vault directory was deleted or moved;
    /// the queue overflowed; reading it failed).
    pub rescan: bool,
}

fn is_page_name(name: &str) -> bool {
    !name.starts_with('.') && name.ends_with(".md") && name != "index.md"
}

fn is_kind_dir(name: &str) -> bool {
    wiki_parse::PageKind::ALL.iter().any(|k| k.dir() == name)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(target_os = "linux")]
pub use linux::TreeWatch;

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::HashMap;
    use std::ffi::CStr;
    use std::mem::MaybeUninit;
    use std::os::fd::OwnedFd;
    use std::path::{Path, PathBuf};

    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::io::Errno;

    use super::{Drained, is_kind_dir, is_page_name, join};

    /// Events of the vault root: page directories appearing, going or changing attributes, the
    /// vault itself going.
    fn root_mask() -> WatchFlags {
        WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::ATTRIB
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
    }

    /// Events of page directories: those of the root, and writes and metadata changes of
    /// files; symbolic links are not followed.
    fn dir_mask() -> WatchFlags {
        root_mask() | WatchFlags::MODIFY | WatchFlags::CLOSE_WRITE | WatchFlags::DONT_FOLLOW
    }

    impl Drained {
        /// Take one event: `dir` is the vault-relative directory of its watch (`""`: the vault
        /// root; `None`: an unknown watch).
        pub fn add(&mut self, dir: Option<&str>, flags: ReadFlags, name: Option<&CStr>) {
            if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                self.rescan = true;
                return;
            }
            if flags.contains(ReadFlags::IGNORED) {
                return;
            }
            let Some(dir) = dir else { return };
            let self_gone = flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF);
            let name = name.and_then(|n| n.to_str().ok()).filter(|n| !n.is_empty());
            if dir.is_empty() {
                // The vault moved or deleted (the listing then finds another vault at its path,
                // or says it is missing), or a page directory appeared or went.
                if self_gone || name.is_some_and(is_kind_dir) {
                    self.rescan = true;
                }
                return;
            }
            if self_gone {
                self.rescan = true;
                return;
            }
            let Some(name) = name.filter(|n| !n.starts_with('.')) else {
                return;
            };
            if flags.contains(ReadFlags::ISDIR) {
                if flags.intersects(
                    ReadFlags::CREATE
                        | ReadFlags::DELETE
                        | ReadFlags::MOVED_FROM
                        | ReadFlags::MOVED_TO
                        | ReadFlags::ATTRIB,
                ) {
                    self.rescan = true;
                }
            } else if is_page_name(name) {
                self.changed.insert(join(dir, name));
            }
        }
    }

    /// The kind of file system `path` is on when other machines may change it (network and
    /// cluster file systems, FUSE): inotify reports only the changes made through this kernel.
    fn shared_fs(path: &Path) -> Option<&'static str> {
        let st = rustix::fs::statfs(path).ok()?;
        // Magic numbers of statfs(2).
        let kind = match st.f_type as u32 {
            0x6969 => "NFS",
            0x517b | 0xff53_4d42 | 0xfe53_4d42 => "SMB/CIFS",
            0x0102_1997 => "9p",
            0x6573_5546 => "FUSE",
            0x00c3_6400 => "Ceph",
            0x5346_414f => "AFS",
            0x0bd0_0bd0 => "Lustre",
            0x0116_1970 => "GFS2",
            0x7461_636f => "OCFS2",
            0x7375_7245 => "Coda",
            _ => return None,
        };
        Some(kind)
    }

    /// The watches of one vault work tree (see the module docs).
    pub struct TreeWatch {
        vault: PathBuf,
        inotify: OwnedFd,
        /// Watch descriptor → vault-relative directory (`""`: the vault root).
        watches: HashMap<i32, String>,
        /// Whether every directory is watched.
        complete: bool,
    }

    impl TreeWatch {
        /// An inotify instance for `vault`, with no watches yet ([`rewatch`](Self::rewatch)
        /// adds them); an error when the vault is on a file system that other machines change
        /// ([`shared_fs`]), whose changes inotify does not report.
        pub fn new(vault: &Path) -> Result<TreeWatch, String> {
            if let Some(kind) = shared_fs(vault) {
                return Err(format!("{}: on {kind}: no file events", vault.display()));
            }
            let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)
                .map_err(|e| format!("inotify: {e}"))?;
            Ok(TreeWatch {
                vault: vault.to_path_buf(),
                inotify,
                watches: HashMap::new(),
                complete: false,
            })
        }

        /// Whether every directory the listing walks is watched (else only a listing tells
        /// what changed).
        pub fn complete(&self) -> bool {
            self.complete
        }

        /// How many directories are watched (the root included).
        pub fn len(&self) -> usize {
            self.watches.len()
        }

        /// Whether nothing is watched.
        pub fn is_empty(&self) -> bool {
            self.watches.is_empty()
        }

        /// (Re-)establish the watches of the root and of every page directory the listing
        /// walks (same rules: no hidden directories, no symbolic links, at most `MAX_DEPTH`
        /// levels below a page-kind directory). Watches of directories no longer found are
        /// removed. Call it before listing, so a change made during the listing is queued.
        pub fn rewatch(&mut self) {
            let mut found: HashMap<i32, String> = HashMap::new();
            let mut ok = true;
            let mut add = |path: &Path, rel: &str, mask: WatchFlags| -> bool {
                match inotify::add_watch(&self.inotify, path, mask) {
                    Ok(wd) => {
                        found.insert(wd, rel.to_string());
                        true
                    }
                    Err(_) => {
                        ok = false;
                        false
                    }
                }
            };
            if add(&self.vault, "", root_mask()) {
                let mut stack: Vec<(PathBuf, String, usize)> = Vec::new();
                for k in wiki_parse::PageKind::ALL {
                    stack.push((self.vault.join(k.dir()), k.dir().to_string(), 0));
                }
                while let Some((abs, rel, depth)) = stack.pop() {
                    if !std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_dir()) {
                        continue;
                    }
                    if !add(&abs, &rel, dir_mask()) || depth >= wiki_vault::MAX_DEPTH {
                        continue;
                    }
                    let Ok(rd) = std::fs::read_dir(&abs) else {
                        continue;
                    };
                    for e in rd.flatten() {
                        let Ok(name) = e.file_name().into_string() else {
                            continue;
                        };
                        if !name.starts_with('.') && e.file_type().is_ok_and(|t| t.is_dir()) {
                            stack.push((e.path(), join(&rel, &name), depth + 1));
                        }
                    }
                }
            }
            for wd in self.watches.keys() {
                if !found.contains_key(wd) {
                    let _ = inotify::remove_watch(&self.inotify, *wd);
                }
            }
            self.watches = found;
            self.complete = ok;
        }

        /// Read every queued event without blocking.
        pub fn drain(&mut self) -> Drained {
            let mut d = Drained::default();
            let mut buf = [MaybeUninit::<u8>::uninit(); 16 * 1024];
            let mut reader = inotify::Reader::new(&self.inotify, &mut buf);
            loop {
                match reader.next() {
                    Ok(ev) => {
                        let dir = self.watches.get(&ev.wd()).map(String::as_str);
                        d.add(dir, ev.events(), ev.file_name());
                        if ev.events().contains(ReadFlags::IGNORED) {
                            self.watches.remove(&ev.wd());
                        }
                    }
                    Err(Errno::AGAIN) => break,
                    Err(Errno::INTR) => continue,
                    Err(_) => {
                        d.rescan = true;
                        break;
                    }
                }
            }
            d
        }
    }
}

/// No file events on this platform: [`TreeWatch::new`] fails, callers list every time.
#[cfg(not(target_os = "linux"))]
pub struct TreeWatch(());

#[cfg(not(target_os = "linux"))]
impl TreeWatch {
    /// Always an error here (file events need inotify).
    pub fn new(_vault: &std::path::Path) -> Result<TreeWatch, String> {
        Err("file events are only used on Linux (inotify)".into())
    }

    /// Never complete.
    pub fn complete(&self) -> bool {
        false
    }

    /// No watches.
    pub fn len(&self) -> usize {
        0
    }

    /// No watches.
    pub fn is_empty(&self) -> bool {
        true
    }

    /// Nothing to watch.
    pub fn rewatch(&mut self) {}

    /// Always a rescan.
    pub fn drain(&mut self) -> Drained {
        Drained {
            rescan: true,
            ..Drained::default()
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use rustix::fs::inotify::ReadFlags;

    use super::*;

    #[test]
    fn events_name_pages_or_ask_for_a_rescan() {
        let mut d = Drained::default();
        d.add(Some("concepts"), ReadFlags::MODIFY, Some(c"a.md"));
        d.add(Some("concepts/team"), ReadFlags::MOVED_TO, Some(c"b.md"));
        d.add(Some("concepts"), ReadFlags::CLOSE_WRITE, Some(c"index.md"));
        d.add(Some("concepts"), ReadFlags::CREATE, Some(c".a.md.tmp"));
        d.add(Some("concepts"), ReadFlags::CREATE, Some(c"notes.txt"));
        d.add(None, ReadFlags::MODIFY, Some(c"stray.md"));
        d.add(Some(""), ReadFlags::CREATE, Some(c"AGENTS.md"));
        d.add(Some(""), ReadFlags::CREATE, Some(c".git"));
        assert_eq!(
            d,
            Drained {
                changed: ["concepts/a.md", "concepts/team/b.md"]
                    .map(String::from)
                    .into(),
                rescan: false,
            }
        );
        // Directories created, deleted, moved or changing attributes; a page directory at the
        // root; the vault itself moved or deleted; an overflow.
        for (dir, flags, name) in [
            (
                "concepts",
                ReadFlags::CREATE | ReadFlags::ISDIR,
                Some(c"team"),
            ),
            (
                "concepts",
                ReadFlags::MOVED_FROM | ReadFlags::ISDIR,
                Some(c"team"),
            ),
            (
                "concepts",
                ReadFlags::ATTRIB | ReadFlags::ISDIR,
                Some(c"team"),
            ),
            ("concepts/team", ReadFlags::DELETE_SELF, None),
            ("", ReadFlags::CREATE | ReadFlags::ISDIR, Some(c"sources")),
            (
                "",
                ReadFlags::MOVED_TO | ReadFlags::ISDIR,
                Some(c"concepts"),
            ),
            ("", ReadFlags::ATTRIB | ReadFlags::ISDIR, Some(c"concepts")),
            ("", ReadFlags::DELETE_SELF, None),
            ("", ReadFlags::MOVE_SELF, None),
            ("", ReadFlags::QUEUE_OVERFLOW, None),
        ] {
            let mut d = Drained::default();
            d.add(Some(dir), flags, name);
            assert!(d.rescan, "{dir} {flags:?} {name:?}");
        }
        let mut d = Drained::default();
        d.add(None, ReadFlags::QUEUE_OVERFLOW, None);
        assert!(d.rescan);
        // A page's attributes name it; a directory's own event (no name) asks for nothing.
        let mut d = Drained::default();
        d.add(Some("concepts"), ReadFlags::ATTRIB, Some(c"a.md"));
        d.add(Some("concepts"), ReadFlags::ATTRIB | ReadFlags::ISDIR, None);
        assert_eq!(d.changed.into_iter().collect::<Vec<_>>(), ["concepts/a.md"]);
        assert!(!d.rescan);
        // A hidden directory is not watched.
        let mut d = Drained::default();
        d.add(
            Some("concepts"),
            ReadFlags::CREATE | ReadFlags::ISDIR,
            Some(c".git"),
        );
        assert_eq!(d, Drained::default());
    }

    /// The watches follow the directories: root and page directories (hidden ones and symbolic
    /// links excluded); a write, a new page and a removed page are named by the next drain; a
    /// new directory asks for a rescan, after which it is watched.
    #[test]
    fn watches_follow_the_page_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["concepts/team", "concepts/.hidden", "entities", "other"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("other"), root.join("syntheses")).unwrap();
        std::fs::write(root.join("concepts/a.md"), "# A\n").unwrap();
        let mut w = TreeWatch::new(root).unwrap();
        w.rewatch();
        assert!(w.complete());
        assert_eq!(w.len(), 4, "root, concepts, concepts/team, entities");
        assert_eq!(w.drain(), Drained::default());
        std::fs::write(root.join("concepts/a.md"), "# B\n").unwrap();
        std::fs::write(root.join("concepts/team/new.md"), "# New\n").unwrap();
        std::fs::remove_file(root.join("concepts/a.md")).unwrap();
        std::fs::write(root.join("other/x.md"), "# Not watched\n").unwrap();
        let d = w.drain();
        assert_eq!(
            d.changed.into_iter().collect::<Vec<_>>(),
            ["concepts/a.md", "concepts/team/new.md"]
        );
        assert!(!d.rescan);
        std::fs::create_dir(root.join("entities/people")).unwrap();
        assert!(w.drain().rescan);
        w.rewatch();
        assert_eq!(w.len(), 5);
        std::fs::write(root.join("entities/people/p.md"), "# P\n").unwrap();
        assert_eq!(
            w.drain().changed.into_iter().collect::<Vec<_>>(),
            ["entities/people/p.md"]
        );
    }
}
