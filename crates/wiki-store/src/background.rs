//! Packing in a detached process (what git's `gc.autoDetach` does for `gc --auto`).
//!
//! A binary that calls [`main_hook`] first thing in `main` lets its commits start a copy of
//! itself (`<exe> --wiki-store-background-pack <vault dir>`: its own process group, no standard
//! streams, lower priority) that runs git's packing (see `maintain`) while the command that
//! committed returns. Library users and binaries without the hook pack in the committing
//! process, as do repositories with `gc.autoDetach = false`.
//!
//! The packer waits for the vault's write lock like any writer and runs git holding it: a
//! command started meanwhile waits for it. It holds `<git common dir>/wiki-pack.lock` from its
//! start, and commits start no second one while it is held. When it fails, it leaves the error
//! in `<git common dir>/wiki-pack.log`; the next commit that packs reports it as a warning and
//! removes it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{Result, Store};

/// The hidden first argument that makes a binary with the [`main_hook`] a packer.
pub const PACK_ARG: &str = "--wiki-store-background-pack";

/// The error file a failed detached packer leaves (in the git common directory).
const LOG_NAME: &str = "wiki-pack.log";

/// Whether this process runs [`main_hook`], so it can start copies of itself as packers.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// First thing in `main` of a binary that commits: run as a detached packer when started as one
/// (the exit code to return), else allow this process's commits to start detached packers
/// (`None`: go on as usual).
pub fn main_hook() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(PACK_ARG)) {
        ENABLED.store(true, Ordering::Relaxed);
        return None;
    }
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: {PACK_ARG} <vault directory>");
        return Some(ExitCode::from(2));
    };
    // A background job: leave the processor to the commands people wait for.
    let _ = rustix::process::setpriority_process(None, 10);
    match run(Path::new(&dir)) {
        Ok(()) => Some(ExitCode::SUCCESS),
        Err(_) => Some(ExitCode::from(2)),
    }
}

fn run(dir: &Path) -> Result<()> {
    let store = Store::open(dir)?;
    store.pack_detached().inspect_err(|e| {
        let _ = std::fs::write(log_path(&store.repo()), format!("{e}\n"));
    })
}

/// Whether commits of this process may start detached packers.
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

fn log_path(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join(LOG_NAME)
}

/// The largest packer log read: a packer writes one error message there; anything larger was
/// not written by it, and is reported by its path and size instead of its text.
const LOG_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("background packing logs", 64 << 10);

/// What a failed detached packer left, removing it (reported once).
pub(crate) fn take_failure(repo: &gix::Repository) -> Option<String> {
    let path = log_path(repo);
    let text = match wiki_cli::read::read_bounded(&path, LOG_LIMIT) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(e) if wiki_cli::read::Limit::is_too_large(&e) => format!("{}: {e}", path.display()),
        Err(_) => return None,
    };
    let _ = std::fs::remove_file(&path);
    Some(format!("a background packing failed: {text}"))
}

/// Start a detached packer for the vault at `vault_dir`; its process id.
pub(crate) fn spawn(vault_dir: &Path) -> std::io::Result<u32> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg(PACK_ARG)
        .arg(vault_dir)
        .current_dir(vault_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        // Out of the terminal's process group: an interrupt of the command does not stop it.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn()?;
    let pid = child.id();
    // A process that outlives the packer (a server) reaps it; one that exits first leaves
    // that to init.
    let _ = std::thread::Builder::new()
        .name("wiki-pack-reaper".into())
        .spawn(move || child.wait());
    Ok(pid)
}
