//! The official Obsidian CLI (`obsidian` on `PATH`), as the original's helpers run it (reference
//! §12): `obsidian [vault=<obsidian.vaultName>] <subcommand> [query=<q> | path=<p> | id=<id>]`,
//! 30 seconds at most.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

/// How long a helper may run.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The message when there is no `obsidian` executable on `PATH`.
pub const MISSING: &str = "Obsidian CLI is not available on PATH.";

/// The message in agent scope (one Obsidian vault name cannot address per-agent vaults).
pub const AGENT_SCOPE: &str =
    "Official Obsidian CLI actions do not support memory-wiki vault.scope=agent.";

/// A helper action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `search query=<q>`.
    Search,
    /// `open path=<p>`.
    Open,
    /// `command id=<id>`.
    Command,
    /// `daily`.
    Daily,
}

impl Action {
    /// The subcommand and its argument's name.
    fn parts(self) -> (&'static str, Option<&'static str>) {
        match self {
            Action::Search => ("search", Some("query")),
            Action::Open => ("open", Some("path")),
            Action::Command => ("command", Some("id")),
            Action::Daily => ("daily", None),
        }
    }

    /// What to print when the CLI printed nothing.
    pub fn success(self) -> &'static str {
        match self {
            Action::Search => "",
            Action::Open => "Opened in Obsidian.",
            Action::Command => "Command sent to Obsidian.",
            Action::Daily => "Opened today's daily note.",
        }
    }
}

/// One run of the CLI.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// The executable.
    pub command: String,
    /// Its arguments.
    pub argv: Vec<String>,
    /// What it printed.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

/// The `obsidian` executable, if on `PATH`.
pub fn probe() -> Option<PathBuf> {
    crate::status::find_on_path("obsidian")
}

/// The arguments of an action.
pub fn argv(vault_name: Option<&str>, action: Action, value: Option<&str>) -> Vec<String> {
    let (sub, arg) = action.parts();
    let mut argv = Vec::new();
    if let Some(name) = vault_name {
        argv.push(format!("vault={name}"));
    }
    argv.push(sub.to_string());
    if let (Some(arg), Some(value)) = (arg, value) {
        argv.push(format!("{arg}={value}"));
    }
    argv
}

/// The most of a child's output kept (its messages are a few lines); the rest is read and
/// dropped so that the child never blocks on a full pipe.
const OUTPUT_KEPT: u64 = 1 << 20;

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = (&mut p).take(OUTPUT_KEPT).read_to_end(&mut buf);
            let _ = std::io::copy(&mut p, &mut std::io::sink());
        }
        buf
    })
}

/// Run `exe argv…`; an error message when it cannot start, times out or fails.
pub fn run(exe: &std::path::Path, argv: Vec<String>) -> Result<Run, String> {
    let shown = format!("{} {}", exe.display(), argv.join(" "));
    let mut child = Command::new(exe)
        .args(&argv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("Obsidian CLI execution failed: {shown}: {e}"))?;
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("Obsidian CLI command timed out: {shown}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("Obsidian CLI execution failed: {shown}: {e}")),
        }
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    if !status.success() {
        let detail = stderr.trim();
        return Err(format!(
            "Obsidian CLI execution failed: {shown}: {status}{}{detail}",
            if detail.is_empty() { "" } else { ": " }
        ));
    }
    Ok(Run {
        command: exe.display().to_string(),
        argv,
        stdout,
        stderr,
    })
}
