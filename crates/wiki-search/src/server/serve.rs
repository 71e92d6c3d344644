//! The server process: lock, watches, the in-memory index, the request loop and the watchdog
//! (idle timeout, vanished vault or socket).

use std::collections::{BTreeSet, HashMap};
use std::ffi::CStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;
use wiki_cli::{CliError, exit};

use super::linux::{
    ANSWER, FALLBACK, OTHER_BUILD, Request, SearchRequest, Status, dir_id, encode_response,
    index_root_fd, short_path,
};
use super::{LOCK, PROTOCOL, SOCKET};
use crate::cmd::search::{Indexes, render, run_queries};
use crate::sources::WorkTree;
use crate::store::{self, Index, Options, Source, SourceFile};

/// Events of the vault root: page directories appearing or going, the vault itself going.
fn root_mask() -> WatchFlags {
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
}

/// Events of page directories: those of the root, and writes and metadata changes of files;
/// symbolic links are not followed.
fn dir_mask() -> WatchFlags {
    root_mask()
        | WatchFlags::MODIFY
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::ATTRIB
        | WatchFlags::DONT_FOLLOW
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

/// What a batch of events asks for.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Drained {
    /// Pages named by events (vault-relative).
    pub(super) changed: BTreeSet<String>,
    /// Watches must be re-established and the whole work tree listed (a directory was created,
    /// deleted or moved; the queue overflowed; reading it failed).
    pub(super) rescan: bool,
    /// The vault directory was deleted or moved.
    pub(super) vault_gone: bool,
}

impl Drained {
    /// Take one event: `dir` is the vault-relative directory of its watch (`""`: the vault root;
    /// `None`: an unknown watch).
    pub(super) fn add(&mut self, dir: Option<&str>, flags: ReadFlags, name: Option<&CStr>) {
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
            if self_gone {
                self.vault_gone = true;
            } else if name.is_some_and(is_kind_dir) {
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
                ReadFlags::CREATE | ReadFlags::DELETE | ReadFlags::MOVED_FROM | ReadFlags::MOVED_TO,
            ) {
                self.rescan = true;
            }
        } else if is_page_name(name) {
            self.changed.insert(join(dir, name));
        }
    }
}

/// The server's state: watches, the listing as last refreshed and the in-memory index.
pub(super) struct State {
    vault: PathBuf,
    dir: PathBuf,
    source: WorkTree,
    opts: Options,
    inotify: OwnedFd,
    /// Watch descriptor → vault-relative directory (`""`: the vault root).
    watches: HashMap<i32, String>,
    /// Whether every directory is watched (else every request lists the whole work tree).
    watching: bool,
    files: Vec<SourceFile>,
    index: Option<Index>,
    requests: u64,
    idle_timeout: u64,
    vault_id: (u64, u64),
}

impl State {
    pub(super) fn new(vault: &Path, program: &str, idle_timeout: u64) -> Result<State, String> {
        let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)
            .map_err(|e| format!("inotify: {e}"))?;
        let vfd = rustix::fs::open(
            vault,
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .map_err(|e| format!("{}: {e}", vault.display()))?;
        let vault_id = dir_id(&vfd).ok_or_else(|| format!("{}: cannot stat", vault.display()))?;
        let dir = crate::wiki_index_dir(vault, &crate::View::WorkTree);
        let mut state = State {
            vault: vault.to_path_buf(),
            source: WorkTree {
                vault: vault.to_path_buf(),
            },
            dir,
            opts: Options {
                rebuild: false,
                program: program.to_string(),
                no_refresh: false,
            },
            inotify,
            watches: HashMap::new(),
            watching: false,
            files: Vec::new(),
            index: None,
            requests: 0,
            idle_timeout,
            vault_id,
        };
        state.sync().map_err(|e| e.to_string())?;
        Ok(state)
    }

    /// (Re-)establish the watches of the root and of every page directory the listing walks
    /// (same rules: no hidden directories, no symbolic links, at most `MAX_DEPTH` levels below
    /// a page-kind directory). Watches of directories no longer found are removed.
    fn rewatch(&mut self) {
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
                if !add(&abs, &rel, dir_mask()) {
                    continue;
                }
                if depth >= wiki_vault::MAX_DEPTH {
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
        self.watching = ok;
    }

    /// Read every queued event without blocking.
    fn drain(&mut self) -> Drained {
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

    /// Bring the in-memory index up to date with the work tree.
    fn sync(&mut self) -> Result<(), crate::Error> {
        let d = self.drain();
        self.apply(d)
    }

    /// Refresh for a batch of events: the named pages only, or (rescan, no index yet, watches
    /// missing) watches first and then the full stat refresh of a normal search.
    pub(super) fn apply(&mut self, d: Drained) -> Result<(), crate::Error> {
        if d.vault_gone {
            self.index = None;
            return Err(crate::Error::Vault(wiki_vault::VaultError::Missing(
                self.vault.clone(),
            )));
        }
        let changed: Vec<String> = d.changed.into_iter().collect();
        let full = d.rescan || !self.watching || self.index.is_none();
        if !full && changed.is_empty() {
            return Ok(());
        }
        // Without an index the next request starts over with a full refresh.
        let previous = self.index.take();
        if full {
            self.rewatch();
            self.files = self.source.list()?;
        } else {
            for path in &changed {
                let now = crate::sources::stat_page(&self.vault, path);
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
        let mut index =
            store::open_listed(&self.dir, &self.source, &self.files, &changed, &self.opts)?;
        index.keep_decoded(previous.as_ref())?;
        self.index = Some(index);
        Ok(())
    }

    /// Answer a search: `(status, exit code, stdout)`.
    fn search(&mut self, req: &SearchRequest) -> (u8, u8, Vec<u8>) {
        let fallback = (FALLBACK, exit::ERROR, Vec::new());
        let Some((args, format)) = req.args() else {
            return fallback;
        };
        if let Err(e) = self.sync() {
            eprintln!(
                "{}: refresh failed, clients search in-process: {e}",
                self.opts.program
            );
            return fallback;
        }
        let idx = Indexes {
            wiki: self.index.as_ref(),
            memory: None,
        };
        match run_queries(
            &idx,
            &args,
            &req.query,
            &crate::memory::Settings::default(),
            req.now_ms,
        ) {
            Ok(hits) => match render(&hits, format) {
                Ok((text, code)) => (ANSWER, code, text.into_bytes()),
                Err(_) => fallback,
            },
            Err(e) => {
                // A corrupt index: the client rebuilds it in-process; start over next time.
                eprintln!("{}: {e}", self.opts.program);
                self.index = None;
                fallback
            }
        }
    }

    fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            protocol: PROTOCOL.to_string(),
            idle_timeout: self.idle_timeout,
            pages: self.files.len(),
            requests: self.requests,
            watches: self.watches.len(),
        }
    }
}

/// Seconds since `start`, for the idle clock.
fn secs(start: Instant) -> u64 {
    start.elapsed().as_secs()
}

/// The socket as bound: its short path (through the index root's descriptor) and inode.
struct Bound {
    path: PathBuf,
    ino: u64,
    _dir: OwnedFd,
}

impl Bound {
    fn ours(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.ino() == self.ino)
    }

    fn remove(&self) {
        if self.ours() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Run the server until it is stopped or idle (`--serve`).
pub(super) fn run(vault: &Path, idle: u64, detach: bool, program: &str) -> Result<u8, CliError> {
    let vault = &std::path::absolute(vault)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", vault.display())))?;
    if detach {
        // A new session: no controlling terminal, no signals of the caller's job; and no hold
        // on the caller's working directory (every path used from here on is absolute).
        let _ = rustix::process::setsid();
        let _ = std::env::set_current_dir("/");
    }
    let wiki_dir = crate::wiki_index_dir(vault, &crate::View::WorkTree);
    if !store::prepare_dir(&wiki_dir) {
        return Err(CliError::Runtime(format!(
            "{}: cannot write the index directory",
            wiki_dir.display()
        )));
    }
    let root = crate::index_root(vault);
    let lock_path = root.join(LOCK);
    let mut lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&lock_path)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", lock_path.display())))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let pid = super::lock_pid(&lock_path).map_or_else(
                || {
                    format!(
                        "unknown: {} is not a lock file this tool wrote",
                        lock_path.display()
                    )
                },
                |p| p.to_string(),
            );
            return Err(CliError::Runtime(format!(
                "a search server is already running for {} (pid {pid})",
                vault.display(),
            )));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(CliError::Runtime(format!("{}: {e}", lock_path.display())));
        }
    }
    let _ = lock.set_len(0);
    let _ = writeln!(lock, "{}", std::process::id());
    let t0 = Instant::now();
    let state = State::new(vault, program, idle).map_err(CliError::Runtime)?;
    let (_vfd, ifd) = index_root_fd(vault).ok_or_else(|| {
        CliError::Runtime(format!(
            "{}: cannot open the index directory",
            root.display()
        ))
    })?;
    let path = short_path(&ifd, SOCKET);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(CliError::Runtime(format!(
                "{}: {e}",
                root.join(SOCKET).display()
            )));
        }
        _ => {}
    }
    let listener = UnixListener::bind(&path)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", root.join(SOCKET).display())))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| CliError::Runtime(format!("{}: {e}", root.join(SOCKET).display())))?;
    let ino = std::fs::symlink_metadata(&path)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", root.join(SOCKET).display())))?
        .ino();
    let bound = Arc::new(Bound {
        path,
        ino,
        _dir: ifd,
    });
    eprintln!(
        "{program}: search server for {} ready in {:.0} ms (pid {}, {} pages, {} watches)",
        vault.display(),
        t0.elapsed().as_secs_f64() * 1000.0,
        std::process::id(),
        state.files.len(),
        state.watches.len()
    );
    let state = Arc::new(Mutex::new(state));
    let start = Instant::now();
    let last = Arc::new(AtomicU64::new(0));
    {
        let (state, bound, last) = (Arc::clone(&state), Arc::clone(&bound), Arc::clone(&last));
        let vault = vault.to_path_buf();
        let vault_ino = std::fs::metadata(&vault).map(|m| m.ino()).ok();
        let program = program.to_string();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let reason = if idle > 0
                    && secs(start).saturating_sub(last.load(Ordering::Relaxed)) >= idle
                {
                    Some(format!("idle for {idle} s"))
                } else if std::fs::metadata(&vault).map(|m| m.ino()).ok() != vault_ino {
                    Some("the vault directory is gone".to_string())
                } else if !bound.ours() {
                    Some("the socket is gone".to_string())
                } else {
                    None
                };
                if let Some(reason) = reason {
                    // Not in the middle of a request.
                    let _guard = state.lock().unwrap_or_else(PoisonError::into_inner);
                    bound.remove();
                    eprintln!("{program}: search server exits: {reason}");
                    std::process::exit(0);
                }
            }
        });
    }
    for conn in listener.incoming() {
        let Ok(stream) = conn else { continue };
        let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
        let stop = handle(stream, &mut st, &last, start);
        if stop {
            bound.remove();
            eprintln!("{program}: search server exits: stopped");
            drop(st);
            return Ok(exit::OK);
        }
    }
    Ok(exit::OK)
}

/// Answer one connection; whether the server must stop.
fn handle(stream: UnixStream, state: &mut State, last: &AtomicU64, start: Instant) -> bool {
    let t = Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let mut line = Vec::new();
    if BufReader::new((&stream).take(1 << 20))
        .read_until(b'\n', &mut line)
        .is_err()
    {
        return false;
    }
    let Ok(req) = serde_json::from_slice::<Request>(&line) else {
        let _ = (&stream).write_all(&encode_response(FALLBACK, exit::ERROR, &[]));
        return false;
    };
    let mut stop = false;
    let (status, code, payload) = match req.op.as_str() {
        "status" => match serde_json::to_vec(&state.status()) {
            Ok(p) => (ANSWER, exit::OK, p),
            Err(_) => (FALLBACK, exit::ERROR, Vec::new()),
        },
        "stop" => {
            stop = true;
            (ANSWER, exit::OK, Vec::new())
        }
        _ if req.proto != PROTOCOL => (OTHER_BUILD, exit::ERROR, Vec::new()),
        "search" => {
            state.requests += 1;
            last.store(secs(start), Ordering::Relaxed);
            match &req.search {
                Some(s) if req.vault == Some(state.vault_id) => state.search(s),
                _ => (FALLBACK, exit::ERROR, Vec::new()),
            }
        }
        _ => (FALLBACK, exit::ERROR, Vec::new()),
    };
    let _ = (&stream).write_all(&encode_response(status, code, &payload));
    if std::env::var_os("WIKI_SEARCH_TRACE").is_some() {
        eprintln!(
            "trace: {} answered in {:.3} ms",
            req.op,
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
    stop
}

#[cfg(test)]
mod tests {
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
                vault_gone: false,
            }
        );
        // Directories created, deleted or moved; a page directory at the root; an overflow.
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
            ("concepts/team", ReadFlags::DELETE_SELF, None),
            ("", ReadFlags::CREATE | ReadFlags::ISDIR, Some(c"sources")),
            ("", ReadFlags::QUEUE_OVERFLOW, None),
        ] {
            let mut d = Drained::default();
            d.add(Some(dir), flags, name);
            assert!(d.rescan && !d.vault_gone, "{dir} {flags:?} {name:?}");
        }
        let mut d = Drained::default();
        d.add(None, ReadFlags::QUEUE_OVERFLOW, None);
        assert!(d.rescan);
        let mut d = Drained::default();
        d.add(Some(""), ReadFlags::DELETE_SELF, None);
        assert!(d.vault_gone);
        // A hidden directory is not watched.
        let mut d = Drained::default();
        d.add(
            Some("concepts"),
            ReadFlags::CREATE | ReadFlags::ISDIR,
            Some(c".git"),
        );
        assert_eq!(d, Drained::default());
    }

    /// A queue overflow falls back to the full stat refresh: an edit whose event was lost is
    /// still found (its stat data changed), and the watches are back.
    #[test]
    fn overflow_falls_back_to_the_full_refresh() {
        let root = std::env::temp_dir().join(format!("wiki-search-serve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(".openclaw-wiki")).unwrap();
        std::fs::create_dir_all(root.join("concepts/team")).unwrap();
        std::fs::write(root.join("concepts/a.md"), "# Alpha\n\nfirst words\n").unwrap();
        let mut st = State::new(&root, "test", 0).unwrap();
        assert_eq!(st.files.len(), 1);
        let watches = st.watches.len();
        assert_eq!(watches, 3, "root, concepts, concepts/team");
        // Simulate lost events: change files, throw the queue away, then report an overflow.
        std::fs::write(root.join("concepts/team/b.md"), "# Beta\n\nsecond words\n").unwrap();
        std::fs::write(
            root.join("concepts/a.md"),
            "# Alpha\n\nchanged text, longer\n",
        )
        .unwrap();
        let _ = st.drain();
        assert_eq!(st.files.len(), 1, "events dropped, nothing refreshed yet");
        let mut d = Drained::default();
        d.add(None, ReadFlags::QUEUE_OVERFLOW, None);
        st.apply(d).unwrap();
        let paths: Vec<&str> = st.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["concepts/a.md", "concepts/team/b.md"]);
        assert_eq!(st.watches.len(), watches);
        let idx = st.index.as_ref().unwrap();
        let a = idx.entry("concepts/a.md").unwrap();
        assert_eq!(
            a.blob,
            crate::codec::blob_id(b"# Alpha\n\nchanged text, longer\n")
        );
        // Without an overflow, an event names the page and only it is refreshed.
        std::fs::remove_file(root.join("concepts/team/b.md")).unwrap();
        st.sync().unwrap();
        let paths: Vec<&str> = st.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["concepts/a.md"]);
        let _ = std::fs::remove_dir_all(&root);
    }
}
