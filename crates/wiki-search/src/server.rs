//! The search server: one optional process per vault that keeps the work-tree index in memory and
//! learns from inotify which pages changed, so a search it answers does not `statx` every page.
//!
//! # Commands
//! * `wiki-search --serve` (or `wiki search --serve`): run the server in the foreground (tests,
//!   supervisors); `--idle-timeout SECONDS` (default 1800, 0 = never);
//! * `wiki-search --server start|stop|status`: start it detached (new session, stdin from
//!   `/dev/null`, stdout and stderr appended to `.openclaw-wiki/tmp/search-server.log`, no other
//!   inherited descriptors), stop it, or ask whether one is running (exit 0) or not (exit 1).
//!
//! Linux only: elsewhere these commands fail with exit 2 and plain searches run as before.
//!
//! # Client
//! A plain search (`wiki-search QUERY`, `wiki search QUERY`) first tries the server of its vault,
//! before it reads any index: it connects to `.openclaw-wiki/index/search.sock` (reached as
//! `/proc/self/fd/<fd of .openclaw-wiki>/index/search.sock`, since socket paths are limited to
//! 108 bytes), sends the request (query, mode, corpus, maximum, ranking, output format, clock)
//! and prints the bytes and exit code it gets back. It searches in-process instead, silently,
//! whenever the server cannot be used: no server or a stale socket, a server of another build
//! ([`PROTOCOL`] holds the version and a hash of the sources that decide the output), another
//! vault behind the socket, a request it does not serve (`--agent`, the memory corpus,
//! `--no-refresh`, `--batch`), `WIKI_SEARCH_SERVER=off`, or any error. Both paths print with
//! the same code ([`crate::cmd::search`]'s `render`), so the output is byte-identical.
//! With `WIKI_SEARCH_SERVER=auto`, a search that finds no server of its own build starts one in
//! the background (`--server start`) and searches in-process; the following searches are served.
//!
//! # Freshness
//! The server keeps the work tree's index in a [`crate::live::LiveTree`]: before answering, it
//! drains the file events queued since the last request ([`crate::watch`]: inotify on the vault
//! root and every page directory) and refreshes exactly the pages they name, re-hashing them
//! even when their stat data looks unchanged. A created, deleted or moved directory, a queue
//! overflow, a failed watch or a failed read falls back to the full stat refresh of a normal
//! search for that request. The refreshed manifest is written like any search's, under the
//! index lock. [`crate::watch`] says what inotify does not report.

#[cfg(not(target_os = "linux"))]
use wiki_cli::{CliError, Format, GlobalArgs};

#[cfg(not(target_os = "linux"))]
use crate::cmd::search::Args;

/// `--server` actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Action {
    /// Start a detached server (nothing to do when one is running).
    Start,
    /// Stop the running server.
    Stop,
    /// Whether a server is running (exit 0) or not (exit 1).
    Status,
}

/// Socket file name, in the index root (`.openclaw-wiki/index/`, git-ignored).
pub const SOCKET: &str = "search.sock";
/// Lock file name (held by the running server; holds its pid), in the index root.
pub const LOCK: &str = "search-server.lock";
/// Log file of a detached server, in `.openclaw-wiki/tmp/`.
pub const LOG: &str = "search-server.log";
/// The largest lock file read: it holds a process id and a newline. A larger one was not
/// written by a server, and its pid is unknown (never read into memory at its claimed size).
pub const LOCK_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("search server lock files", 64);
/// How much of the end of the log a failed start reads for its last line (the log is appended
/// to by every detached server: its size has no bound).
pub const LOG_TAIL_BYTES: u64 = 64 << 10;

/// The process id in the server lock file at `path`; `None` when it cannot be read, is larger
/// than [`LOCK_LIMIT`] or holds no pid.
pub fn lock_pid(path: &std::path::Path) -> Option<i32> {
    wiki_cli::read::read_bounded_string(path, LOCK_LIMIT)
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
}

/// The last line of the last [`LOG_TAIL_BYTES`] of the log at `path` (empty when there is none).
fn log_tail(path: &std::path::Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let mut tail = Vec::new();
    if file
        .seek(SeekFrom::Start(len.saturating_sub(LOG_TAIL_BYTES)))
        .and_then(|_| (&file).take(LOG_TAIL_BYTES).read_to_end(&mut tail))
        .is_err()
    {
        return String::new();
    }
    // Zero bytes (a sparse or preallocated file) are no text.
    String::from_utf8_lossy(&tail)
        .lines()
        .last()
        .unwrap_or_default()
        .trim_matches('\0')
        .to_string()
}
/// Protocol and build id: a client only talks to a server with the same one.
pub const PROTOCOL: &str = concat!(
    "wiki-search/",
    env!("CARGO_PKG_VERSION"),
    "/",
    env!("WIKI_SEARCH_BUILD_ID"),
    "/1"
);

/// Run `--serve` or `--server ACTION`.
#[cfg(not(target_os = "linux"))]
pub fn command(
    _global: &GlobalArgs,
    _args: &Args,
    _program: &str,
    _default: Format,
) -> Result<u8, CliError> {
    Err(CliError::Usage(
        "the search server is only supported on Linux (it needs inotify); searches work without it"
            .into(),
    ))
}

/// The output of a search answered by the vault's search server, or `None` to search
/// in-process (always, on this platform).
#[cfg(not(target_os = "linux"))]
pub fn client_search(
    _global: &GlobalArgs,
    _args: &Args,
    _format: Format,
    _now_ms: i64,
    _program: &str,
) -> Option<(String, u8)> {
    None
}

#[cfg(target_os = "linux")]
mod serve;

#[cfg(target_os = "linux")]
pub use linux::{client_search, command, running};

/// Whether a search server runs for the vault (never, on this platform).
#[cfg(not(target_os = "linux"))]
pub fn running(_vault: &std::path::Path) -> bool {
    false
}

#[cfg(target_os = "linux")]
mod linux {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::net::UnixStream;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    use rustix::fs::{Mode, OFlags};
    use serde::{Deserialize, Serialize};
    use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

    use super::{Action, LOCK, LOG, PROTOCOL, SOCKET};
    use crate::cmd::search::Args;

    /// A request: one JSON line.
    #[derive(Debug, Serialize, Deserialize)]
    pub(super) struct Request {
        pub(super) proto: String,
        pub(super) op: String,
        /// Device and inode of the client's vault directory.
        #[serde(default)]
        pub(super) vault: Option<(u64, u64)>,
        #[serde(default)]
        pub(super) search: Option<SearchRequest>,
    }

    /// Everything that decides a wiki-only search's output.
    #[derive(Debug, Serialize, Deserialize)]
    pub(super) struct SearchRequest {
        pub(super) query: String,
        pub(super) mode: String,
        pub(super) corpus: String,
        pub(super) backend: String,
        pub(super) max_results: usize,
        pub(super) ranking: String,
        pub(super) format: String,
        pub(super) now_ms: i64,
    }

    /// Response status byte: the answer follows.
    pub(super) const ANSWER: u8 = b'O';
    /// Response status byte: search in-process instead.
    pub(super) const FALLBACK: u8 = b'F';
    /// Response status byte: the server is of another build.
    pub(super) const OTHER_BUILD: u8 = b'M';

    /// A response: status byte, exit code byte, payload length (u64 LE), payload.
    pub(super) fn encode_response(status: u8, code: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(10 + payload.len());
        out.push(status);
        out.push(code);
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    fn decode_response(bytes: &[u8]) -> Option<(u8, u8, &[u8])> {
        let len = u64::from_le_bytes(bytes.get(2..10)?.try_into().ok()?);
        let payload = bytes.get(10..)?;
        (payload.len() as u64 == len).then(|| (bytes[0], bytes[1], payload))
    }

    fn value_name<T: clap::ValueEnum>(v: &T) -> Option<String> {
        v.to_possible_value().map(|p| p.get_name().to_string())
    }

    /// Whether `WIKI_SEARCH_SERVER=off` (or `0`) disables the client.
    fn client_disabled() -> bool {
        std::env::var_os("WIKI_SEARCH_SERVER").is_some_and(|v| v == "off" || v == "0")
    }

    /// An open connection to the server of a vault.
    pub(super) struct Conn {
        stream: UnixStream,
        vault_id: (u64, u64),
    }

    /// Device and inode of a directory.
    pub(super) fn dir_id(fd: &OwnedFd) -> Option<(u64, u64)> {
        let st = rustix::fs::fstat(fd).ok()?;
        Some((st.st_dev, st.st_ino))
    }

    /// `<vault>/.openclaw-wiki/index` opened as a path descriptor, and the short path of a file
    /// in it through `/proc/self/fd`.
    pub(super) fn index_root_fd(vault: &Path) -> Option<(OwnedFd, OwnedFd)> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let vfd = rustix::fs::open(vault, flags, Mode::empty()).ok()?;
        let ifd = rustix::fs::openat(
            &vfd,
            Path::new(wiki_cli::VAULT_MARKER_DIR).join("index"),
            flags,
            Mode::empty(),
        )
        .ok()?;
        Some((vfd, ifd))
    }

    /// `/proc/self/fd/<fd>/<name>`.
    pub(super) fn short_path(dir: &OwnedFd, name: &str) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}/{name}", dir.as_raw_fd()))
    }

    impl Conn {
        /// Connect to the vault's server (`None`: no server answers).
        pub(super) fn open(vault: &Path, timeout: Duration) -> Option<Conn> {
            let (vfd, ifd) = index_root_fd(vault)?;
            let stream = UnixStream::connect(short_path(&ifd, SOCKET)).ok()?;
            stream.set_read_timeout(Some(timeout)).ok()?;
            stream
                .set_write_timeout(Some(Duration::from_secs(5)))
                .ok()?;
            Some(Conn {
                stream,
                vault_id: dir_id(&vfd)?,
            })
        }

        /// Send a request, read the response: `(status, code, payload)`.
        pub(super) fn call(
            mut self,
            op: &str,
            search: Option<SearchRequest>,
        ) -> Option<(u8, u8, Vec<u8>)> {
            let req = Request {
                proto: PROTOCOL.to_string(),
                op: op.to_string(),
                vault: Some(self.vault_id),
                search,
            };
            let mut line = serde_json::to_vec(&req).ok()?;
            line.push(b'\n');
            self.stream.write_all(&line).ok()?;
            let mut head = [0u8; 10];
            self.stream.read_exact(&mut head).ok()?;
            let len = usize::try_from(u64::from_le_bytes(head[2..].try_into().ok()?)).ok()?;
            // A payload is a search's output: never near this bound.
            if len > 1 << 30 {
                return None;
            }
            let mut buf = head.to_vec();
            buf.reserve_exact(len + 1);
            // One byte past the payload: a longer answer is not one the server sends.
            (&self.stream)
                .take(len as u64 + 1)
                .read_to_end(&mut buf)
                .ok()?;
            let (status, code, payload) = decode_response(&buf)?;
            Some((status, code, payload.to_vec()))
        }
    }

    /// The output of a search answered by the vault's search server, or `None` to search
    /// in-process (see the module docs for when).
    pub fn client_search(
        global: &GlobalArgs,
        args: &Args,
        format: Format,
        now_ms: i64,
        program: &str,
    ) -> Option<(String, u8)> {
        if args.batch
            || args.no_refresh
            || crate::cmd::corpora(args.corpus, args.backend) != (true, false)
            || client_disabled()
        {
            return None;
        }
        if global.agent_id().ok()?.is_some() {
            return None;
        }
        let vault = global.vault_dir().ok()?;
        let Some(conn) = Conn::open(&vault, Duration::from_secs(30)) else {
            auto_start(&vault, program);
            return None;
        };
        let search = SearchRequest {
            query: args.query.join(" "),
            mode: value_name(&args.mode)?,
            corpus: value_name(&args.corpus)?,
            backend: value_name(&args.backend)?,
            max_results: args.max_results,
            ranking: value_name(&args.ranking)?,
            format: wiki_cli::format_name(format).to_string(),
            now_ms,
        };
        match conn.call("search", Some(search))? {
            (ANSWER, code, payload) => Some((String::from_utf8(payload).ok()?, code)),
            (OTHER_BUILD, _, _) => {
                auto_start(&vault, program);
                None
            }
            _ => None,
        }
    }

    /// This program as a search of `vault` (`wiki search --vault V` from the dispatcher,
    /// `wiki-search --vault V` otherwise), its inherited descriptors marked close-on-exec.
    fn search_command(vault: &Path, program: &str) -> Result<std::process::Command, CliError> {
        let exe = std::env::current_exe().map_err(CliError::runtime)?;
        cloexec_inherited();
        let mut cmd = std::process::Command::new(exe);
        if program == "wiki" {
            cmd.arg("search");
        }
        cmd.arg("--vault").arg(vault);
        Ok(cmd)
    }

    /// With `WIKI_SEARCH_SERVER=auto`, a search that finds no server of its build for the
    /// vault starts one in the background (`--server start`, which also replaces a server of
    /// another build) and searches in-process; the searches after it are served. Like git's
    /// built-in fsmonitor daemon, the server then lives until it is stopped or idle
    /// (`--idle-timeout`, 30 minutes by default). Concurrent starts are harmless: one server
    /// holds the vault's lock, the others exit.
    fn auto_start(vault: &Path, program: &str) {
        if std::env::var_os("WIKI_SEARCH_SERVER").is_none_or(|v| v != "auto") {
            return;
        }
        let Ok(mut cmd) = search_command(vault, program) else {
            return;
        };
        cmd.args(["--server", "start"])
            .env_remove("WIKI_SEARCH_SERVER")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // Not waited for: it waits for the server to answer, which this search does not need.
        if let Err(e) = cmd.spawn() {
            wiki_cli::warn(program, &format!("cannot start the search server: {e}"));
        }
    }

    impl SearchRequest {
        /// The search arguments of the request (`None` when a value is not understood).
        pub(super) fn args(&self) -> Option<(Args, Format)> {
            use clap::ValueEnum;
            let format = Format::from_str(&self.format, false).ok()?;
            let args = Args {
                query: vec![self.query.clone()],
                mode: ValueEnum::from_str(&self.mode, false).ok()?,
                corpus: ValueEnum::from_str(&self.corpus, false).ok()?,
                backend: ValueEnum::from_str(&self.backend, false).ok()?,
                max_results: self.max_results,
                memory: None,
                min_score: None,
                ranking: ValueEnum::from_str(&self.ranking, false).ok()?,
                no_refresh: false,
                batch: false,
                serve: false,
                server: None,
                idle_timeout: 0,
                detach: false,
            };
            (crate::cmd::corpora(args.corpus, args.backend) == (true, false))
                .then_some((args, format))
        }
    }

    /// What `status` learns from a running server.
    #[derive(Debug, Clone, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Status {
        pub(super) pid: u32,
        pub(super) protocol: String,
        pub(super) idle_timeout: u64,
        pub(super) pages: usize,
        pub(super) requests: u64,
        pub(super) watches: usize,
    }

    /// The status of the vault's server, when one answers.
    fn status_of(vault: &Path) -> Option<Status> {
        let (status, _, payload) =
            Conn::open(vault, Duration::from_secs(30))?.call("status", None)?;
        (status == ANSWER)
            .then(|| serde_json::from_slice(&payload).ok())
            .flatten()
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Record<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        state: &'static str,
        vault: String,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        status: Option<&'a Status>,
        #[serde(skip_serializing_if = "Option::is_none")]
        compatible: Option<bool>,
    }

    fn print(
        format: Format,
        vault: &Path,
        state: &'static str,
        status: Option<&Status>,
    ) -> Result<(), CliError> {
        let rec = Record {
            kind: "server",
            state,
            vault: vault.display().to_string(),
            status,
            compatible: status.map(|s| s.protocol == PROTOCOL),
        };
        let mut out = Output::new();
        match format {
            Format::Json => out.json(&rec)?,
            Format::Text => {
                let detail = match status {
                    Some(s) if s.protocol != PROTOCOL => {
                        format!(" (pid {}, another build: {}; not used)", s.pid, s.protocol)
                    }
                    Some(s) => format!(
                        " (pid {}, {} pages, {} requests, idle timeout {} s)",
                        s.pid, s.pages, s.requests, s.idle_timeout
                    ),
                    None => String::new(),
                };
                out.line(&format!(
                    "search server {state}: {}{detail}",
                    vault.display()
                ))?;
            }
            _ => out.record(&rec)?,
        }
        out.flush()
    }

    /// Run `--serve` or `--server ACTION`.
    pub fn command(
        global: &GlobalArgs,
        args: &Args,
        program: &str,
        default: Format,
    ) -> Result<u8, CliError> {
        let format = global.format_among(default, &[Format::Text, Format::Json, Format::Jsonl])?;
        let vault = global.vault_dir()?;
        if !vault.is_dir() {
            return Err(CliError::Runtime(format!(
                "{}: vault directory does not exist",
                vault.display()
            )));
        }
        if args.serve {
            if global.agent.is_some() {
                return Err(CliError::Usage(
                    "the search server serves the work tree; --agent is not supported with --serve"
                        .into(),
                ));
            }
            return super::serve::run(&vault, args.idle_timeout, args.detach, program);
        }
        match args.server {
            Some(Action::Start) => start(&vault, args.idle_timeout, program, format),
            Some(Action::Stop) => {
                let stopped = stop(&vault)?;
                print(
                    format,
                    &vault,
                    if stopped { "stopped" } else { "not-running" },
                    None,
                )?;
                Ok(if stopped { exit::OK } else { exit::FOUND })
            }
            Some(Action::Status) | None => match status_of(&vault) {
                Some(s) => {
                    print(format, &vault, "running", Some(&s))?;
                    Ok(exit::OK)
                }
                None => {
                    print(format, &vault, "not-running", None)?;
                    Ok(exit::FOUND)
                }
            },
        }
    }

    fn lock_path(vault: &Path) -> PathBuf {
        crate::index_root(vault).join(LOCK)
    }

    /// Whether a search server runs for the vault (its lock is held, answering or not).
    pub fn running(vault: &Path) -> bool {
        locked(vault)
    }

    /// Whether the server lock of the vault is held (a server is running, answering or not).
    fn locked(vault: &Path) -> bool {
        let Ok(f) = std::fs::File::open(lock_path(vault)) else {
            return false;
        };
        matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
    }

    fn wait_unlocked(vault: &Path, limit: Duration) -> bool {
        let t = Instant::now();
        while locked(vault) {
            if t.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    /// Stop the vault's server: ask it, else (it does not answer) send SIGTERM to the pid in its
    /// lock file. Whether one was running.
    fn stop(vault: &Path) -> Result<bool, CliError> {
        let asked = Conn::open(vault, Duration::from_secs(5))
            .and_then(|c| c.call("stop", None))
            .is_some();
        if !locked(vault) {
            return Ok(asked);
        }
        if wait_unlocked(vault, Duration::from_secs(5)) {
            return Ok(true);
        }
        let pid = super::lock_pid(&lock_path(vault)).and_then(rustix::process::Pid::from_raw);
        if let Some(pid) = pid {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        if wait_unlocked(vault, Duration::from_secs(5)) {
            Ok(true)
        } else {
            Err(CliError::Runtime(format!(
                "the search server of {} does not stop (lock {} still held)",
                vault.display(),
                lock_path(vault).display()
            )))
        }
    }

    /// Mark every inherited descriptor above stderr close-on-exec, so the detached server
    /// holds none of the caller's pipes.
    fn cloexec_inherited() {
        let Ok(rd) = std::fs::read_dir("/proc/self/fd") else {
            return;
        };
        let fds: Vec<i32> = rd
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|&fd| fd > 2)
            .collect();
        for fd in fds {
            // SAFETY: `fd` was listed in /proc/self/fd; it is borrowed for two `fcntl` calls
            // and never closed. If it was closed meanwhile (the listing's own descriptor), the
            // calls fail with EBADF, which is ignored.
            #[allow(unsafe_code)]
            let fd = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
            if let Ok(flags) = rustix::io::fcntl_getfd(fd) {
                let _ = rustix::io::fcntl_setfd(fd, flags | rustix::io::FdFlags::CLOEXEC);
            }
        }
    }

    /// Start a detached server and wait until it answers.
    fn start(vault: &Path, idle: u64, program: &str, format: Format) -> Result<u8, CliError> {
        if let Some(s) = status_of(vault) {
            if s.protocol == PROTOCOL {
                print(format, vault, "running", Some(&s))?;
                return Ok(exit::OK);
            }
            wiki_cli::warn(
                program,
                &format!(
                    "replacing the search server of another build ({})",
                    s.protocol
                ),
            );
            stop(vault)?;
        }
        let tmp = wiki_parse::layout::TMP_DIR;
        wiki_parse::layout::ensure_ignored_dir(vault, tmp)
            .map_err(|e| CliError::Runtime(format!("{}: {e}", vault.join(tmp).display())))?;
        let log_path = vault.join(tmp).join(LOG);
        let log = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| CliError::Runtime(format!("{}: {e}", log_path.display())))?;
        let log2 = log
            .try_clone()
            .map_err(|e| CliError::Runtime(format!("{}: {e}", log_path.display())))?;
        let mut cmd = search_command(vault, program)?;
        cmd.args(["--serve", "--detach", "--idle-timeout"])
            .arg(idle.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(log)
            .stderr(log2);
        let mut child = cmd
            .spawn()
            .map_err(|e| CliError::Runtime(format!("cannot start the search server: {e}")))?;
        let t = Instant::now();
        loop {
            if let Some(st) = child.try_wait().map_err(CliError::runtime)? {
                let tail = super::log_tail(&log_path);
                return Err(CliError::Runtime(format!(
                    "the search server exited ({st}): {tail} (log: {})",
                    log_path.display()
                )));
            }
            if let Some(s) = status_of(vault) {
                print(format, vault, "running", Some(&s))?;
                return Ok(exit::OK);
            }
            if t.elapsed() > Duration::from_secs(300) {
                return Err(CliError::Runtime(format!(
                    "the search server did not answer within 300 s (log: {})",
                    log_path.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
