//! The server process: lock, the work tree kept current by file events ([`LiveTree`]), the
//! request loop and the watchdog (idle timeout, vanished vault or socket).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use wiki_cli::{CliError, exit};

use super::linux::{
    ANSWER, FALLBACK, OTHER_BUILD, Request, SearchRequest, Status, dir_id, encode_response,
    index_root_fd, short_path,
};
use super::{LOCK, PROTOCOL, SOCKET};
use crate::cmd::search::{Indexes, render, run_queries};
use crate::live::LiveTree;
use crate::store::{self, Options};

/// The server's state: the work tree kept current by file events, and its counters.
pub(super) struct State {
    tree: LiveTree,
    opts: Options,
    requests: u64,
    idle_timeout: u64,
    vault_id: (u64, u64),
}

impl State {
    pub(super) fn new(vault: &Path, program: &str, idle_timeout: u64) -> Result<State, String> {
        let vfd = rustix::fs::open(
            vault,
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .map_err(|e| format!("{}: {e}", vault.display()))?;
        let vault_id = dir_id(&vfd).ok_or_else(|| format!("{}: cannot stat", vault.display()))?;
        let mut state = State {
            tree: LiveTree::new(vault),
            opts: Options {
                rebuild: false,
                program: program.to_string(),
                no_refresh: false,
            },
            requests: 0,
            idle_timeout,
            vault_id,
        };
        state.tree.refresh(&state.opts).map_err(|e| e.to_string())?;
        Ok(state)
    }

    /// Answer a search: `(status, exit code, stdout)`.
    fn search(&mut self, req: &SearchRequest) -> (u8, u8, Vec<u8>) {
        let fallback = (FALLBACK, exit::ERROR, Vec::new());
        let Some((args, format)) = req.args() else {
            return fallback;
        };
        if let Err(e) = self.tree.refresh(&self.opts) {
            eprintln!(
                "{}: refresh failed, clients search in-process: {e}",
                self.opts.program
            );
            return fallback;
        }
        let idx = Indexes {
            wiki: self.tree.index(),
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
                self.tree.forget();
                fallback
            }
        }
    }

    fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            protocol: PROTOCOL.to_string(),
            idle_timeout: self.idle_timeout,
            pages: self.tree.pages(),
            requests: self.requests,
            watches: self.tree.watches(),
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
        state.tree.pages(),
        state.tree.watches()
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
