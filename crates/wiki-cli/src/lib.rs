//! Shared command-line plumbing for every `wiki` binary.
//!
//! Every binary of the toolchain (`wiki`, `wiki-parse`, `wiki-digest`, `wiki-lint`, `wiki-search`,
//! `wiki-apply`) follows the same conventions, defined once here:
//!
//! * **Global flags** ([`GlobalArgs`]): `--vault DIR`, `--agent ID`, `--format FORMAT` / `--json`,
//!   `--now TIMESTAMP`. `wiki-lint --vault DIR` and `wiki --vault DIR lint` therefore agree.
//! * **Vault resolution** ([`GlobalArgs::vault_dir`]): `--vault DIR`, else `$WIKI_VAULT`, else the
//!   enclosing vault of the current directory (the nearest ancestor holding `.openclaw-wiki/`),
//!   else `vault.path` of the OpenClaw config ([`config`]), else the OpenClaw default
//!   `$OPENCLAW_STATE_DIR/wiki/main` (`~/.openclaw/wiki/main`).
//! * **Agent** ([`GlobalArgs::agent_id`]): `--agent`, else `$WIKI_AGENT`, else (with
//!   `vault.scope: agent` in the config) the configured default agent.
//! * **Clock** ([`GlobalArgs::now`]): `--now`, else `$WIKI_NOW`, else the system clock, so tests and
//!   CI can pin time (`WIKI_NOW=2026-04-05T12:00:00Z`).
//! * **Exit codes are API** ([`exit`]): 0 ok, 1 ran fine but found something (lint findings, no
//!   search hits, a page that failed to parse), 2 usage or runtime error. A closed stdout pipe is a
//!   clean exit (0).
//! * **stdout is data, stderr is talk**: [`Output`] writes JSON Lines records (each with a `type`
//!   field) or text; errors go to stderr as `<program>: error: <message>`.
//! * **One output convention** ([`output`]): porcelain `wiki <command>` prints text for people
//!   (coloured only on a terminal, `--color`, `$NO_COLOR`), `--json` / `--format jsonl` give data
//!   on every command, plumbing binaries print JSON Lines; large results are summarised.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

pub mod config;
pub mod output;
pub mod read;

/// Exit codes shared by every binary.
pub mod exit {
    /// Ran fine, nothing to report.
    pub const OK: u8 = 0;
    /// Ran fine but found something: lint findings at the deny level, no search hits, pages that
    /// failed to parse, a stale compile under `--check`.
    pub const FOUND: u8 = 1;
    /// Usage error (unknown flag, bad value) or runtime error (unreadable vault, git failure).
    pub const ERROR: u8 = 2;
}

/// The directory, inside a vault, that marks it as a vault (`.openclaw-wiki/`).
pub const VAULT_MARKER_DIR: &str = ".openclaw-wiki";

/// Output format selector shared by all commands. Not every command supports every format; each
/// command documents its default and rejects formats it cannot produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// One JSON document (an object or an array).
    Json,
    /// JSON Lines: one record per line, each with a `type` field.
    Jsonl,
    /// GitHub Actions workflow annotations (`::error file=...,line=...::message`).
    Github,
}

/// Flags shared by every binary, defined once and flattened into each command line.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct GlobalArgs {
    /// Vault directory. Default: $WIKI_VAULT, else the enclosing vault of the current directory,
    /// else `vault.path` of the OpenClaw config, else $OPENCLAW_STATE_DIR/wiki/main
    /// (~/.openclaw/wiki/main).
    #[arg(long, global = true, value_name = "DIR")]
    pub vault: Option<PathBuf>,

    /// Act as this agent: read from and commit to the branch `agents/<ID>`. Default: $WIKI_AGENT;
    /// with `vault.scope: agent` in the OpenClaw config, the configured default agent; else the
    /// current branch.
    #[arg(long, global = true, value_name = "ID")]
    pub agent: Option<String>,

    /// Output format (each command documents its default).
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,

    /// Shorthand for `--format json`.
    #[arg(long, global = true, conflicts_with = "format")]
    pub json: bool,

    /// Pin the clock (RFC 3339, e.g. 2026-04-05T12:00:00Z). Default: $WIKI_NOW, else the system clock.
    #[arg(long, global = true, value_name = "TIMESTAMP")]
    pub now: Option<String>,

    /// Colour text output: auto (only on a terminal, and not when $NO_COLOR is set), always,
    /// never.
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value = "auto"
    )]
    pub color: output::ColorChoice,
}

/// Errors raised by the shared plumbing.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user asked for something that cannot work (bad flag value, unsupported format).
    #[error("{0}")]
    Usage(String),
    /// Something failed while running.
    #[error("{0}")]
    Runtime(String),
    /// Writing to stdout failed because the reader went away: a clean exit.
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    /// The documented exit code of this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::BrokenPipe => exit::OK,
            CliError::Usage(_) | CliError::Runtime(_) => exit::ERROR,
        }
    }

    /// Wrap any displayable error as a runtime error.
    pub fn runtime(err: impl std::fmt::Display) -> Self {
        CliError::Runtime(err.to_string())
    }
}

impl From<io::Error> for CliError {
    fn from(err: io::Error) -> Self {
        if err.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Runtime(err.to_string())
        }
    }
}

impl GlobalArgs {
    /// The effective output format: `--json` → json, `--format X` → X, else `default`.
    pub fn format_or(&self, default: Format) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format.unwrap_or(default)
        }
    }

    /// Reject formats a command cannot produce. A command whose data is one JSON document
    /// (`--json`) also takes `--format jsonl`: the document on one line ([`Output::json`]).
    pub fn format_among(&self, default: Format, allowed: &[Format]) -> Result<Format, CliError> {
        let format = self.format_or(default);
        if allowed.contains(&format) {
            Ok(format)
        } else if format == Format::Jsonl && allowed.contains(&Format::Json) {
            output::set_one_line_json();
            Ok(Format::Json)
        } else {
            let names: Vec<&str> = allowed.iter().map(|f| format_name(*f)).collect();
            Err(CliError::Usage(format!(
                "--format {} is not supported here (expected one of: {})",
                format_name(format),
                names.join(", ")
            )))
        }
    }

    /// Resolve the vault directory (see the crate docs for the order; `vault.path` of the
    /// OpenClaw config, see [`config`], comes after the enclosing vault).
    pub fn vault_dir(&self) -> Result<PathBuf, CliError> {
        Ok(self.vault_setting()?.value)
    }

    /// [`GlobalArgs::vault_dir`] with where it came from: `--vault` (flag), `$WIKI_VAULT`
    /// (environment), the enclosing vault (detected), `vault.path` (file) or the default.
    pub fn vault_setting(&self) -> Result<config::Setting<PathBuf>, CliError> {
        use config::{Setting, Source};
        let cwd = std::env::current_dir()
            .map_err(|e| CliError::Runtime(format!("cannot read the current directory: {e}")))?;
        if let Some(dir) = &self.vault {
            return Ok(Setting::new(absolutize(dir, &cwd), Source::flag("--vault")));
        }
        if let Some(dir) = std::env::var_os("WIKI_VAULT").filter(|v| !v.is_empty()) {
            return Ok(Setting::new(
                absolutize(Path::new(&dir), &cwd),
                Source::env("WIKI_VAULT"),
            ));
        }
        if let Some(found) = enclosing_vault(&cwd) {
            return Ok(Setting::new(
                found,
                Source::detected("enclosing vault of the current directory"),
            ));
        }
        Ok(config::load()?.vault_path_setting())
    }

    /// Refuse a vault chosen explicitly (`--vault`, `$WIKI_VAULT`) that is not one: a usage error
    /// naming the directory and how to create a vault there, instead of a command that runs on
    /// nothing and reports "no results".
    pub fn require_chosen_vault(&self) -> Result<(), CliError> {
        let setting = self.vault_setting()?;
        let origin = match setting.source.kind {
            config::SourceKind::Flag => "--vault",
            config::SourceKind::Environment => "$WIKI_VAULT",
            _ => return Ok(()),
        };
        let dir = &setting.value;
        if dir.join(VAULT_MARKER_DIR).is_dir() {
            return Ok(());
        }
        let what = if dir.is_dir() {
            format!("not a wiki vault (no {VAULT_MARKER_DIR}/ directory)")
        } else if dir.exists() {
            "not a directory".to_string()
        } else {
            "no such directory".to_string()
        };
        Err(CliError::Usage(format!(
            "{origin} {}: {what}; create a vault there with `wiki init {}`",
            dir.display(),
            dir.display()
        )))
    }

    /// The agent to act as: `--agent`, else `$WIKI_AGENT` (as given: an id that OpenClaw's
    /// normalisation would change is refused, see [`check_agent_spelling`]), else none (the current branch) — or, when the OpenClaw config sets
    /// `vault.scope: agent`, the configured default agent (see [`config`]).
    pub fn agent_id(&self) -> Result<Option<String>, CliError> {
        Ok(self.agent_setting(&config::load()?)?.value)
    }

    /// [`GlobalArgs::agent_id`] against an already loaded config, with where it came from.
    pub fn agent_setting(
        &self,
        cfg: &config::WikiConfig,
    ) -> Result<config::Setting<Option<String>>, CliError> {
        use config::Source;
        let (explicit, source) = match (&self.agent, std::env::var("WIKI_AGENT").ok()) {
            (Some(a), _) if !a.trim().is_empty() => (Some(a.clone()), Source::flag("--agent")),
            (_, Some(a)) if !a.trim().is_empty() => (Some(a), Source::env("WIKI_AGENT")),
            _ if cfg.agent_scope => (
                None,
                Source {
                    kind: config::SourceKind::File,
                    via: Some("vault.scope: agent, the default agent".into()),
                },
            ),
            _ => (None, Source::default_value()),
        };
        if let Some(raw) = &explicit {
            check_agent_spelling(raw, &source, cfg)?;
        }
        let value = cfg.resolve_agent(explicit.as_deref())?;
        Ok(config::Setting::new(value, source))
    }

    /// The pinned or real clock as a timestamp.
    pub fn now(&self) -> Result<jiff::Timestamp, CliError> {
        if let Some(raw) = &self.now {
            return parse_now(raw, "--now");
        }
        match std::env::var("WIKI_NOW") {
            Ok(raw) if !raw.trim().is_empty() => parse_now(&raw, "WIKI_NOW"),
            _ => Ok(jiff::Timestamp::now()),
        }
    }
}

/// An explicit agent id (`--agent`, `$WIKI_AGENT`) must already be in OpenClaw's normal form
/// (trimmed, lowercase, no whitespace: [`config::normalize_agent_id`]), or name an agent of the
/// OpenClaw config in another spelling (`--agent "Support Team"` for the configured
/// `support-team`, as the original plugin accepts). Anything else is refused with the normal form
/// instead of silently acting as another agent (`--agent "a b"` would otherwise write the branch
/// `agents/a-b`).
fn check_agent_spelling(
    raw: &str,
    source: &config::Source,
    cfg: &config::WikiConfig,
) -> Result<(), CliError> {
    let normal = config::normalize_agent_id(raw);
    if normal == raw || cfg.agents.contains(&normal) {
        return Ok(());
    }
    let origin = source.via.as_deref().unwrap_or("--agent");
    Err(CliError::Usage(format!(
        "{origin} {raw:?}: an agent id is used as given, in its normal form (lowercase, no \
         spaces): use {normal:?}"
    )))
}

fn parse_now(raw: &str, origin: &str) -> Result<jiff::Timestamp, CliError> {
    let raw = raw.trim();
    if let Ok(ts) = raw.parse::<jiff::Timestamp>() {
        return Ok(ts);
    }
    if let Ok(date) = raw.parse::<jiff::civil::Date>()
        && let Ok(ts) = date.to_zoned(jiff::tz::TimeZone::UTC)
    {
        return Ok(ts.timestamp());
    }
    Err(CliError::Usage(format!(
        "{origin}: cannot parse `{raw}` as an RFC 3339 timestamp (e.g. 2026-04-05T12:00:00Z)"
    )))
}

/// The printable name of a format (as accepted by `--format`).
pub fn format_name(format: Format) -> &'static str {
    match format {
        Format::Text => "text",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
        Format::Github => "github",
    }
}

/// Vault resolution with explicit inputs (testable): flag, then env, then the enclosing vault of
/// `cwd`, then the OpenClaw default.
pub fn resolve_vault(flag: Option<&Path>, env: Option<PathBuf>, cwd: &Path) -> PathBuf {
    resolve_vault_with(flag, env, cwd, None)
}

/// [`resolve_vault`] with the configured `vault.path` tried before the default.
pub fn resolve_vault_with(
    flag: Option<&Path>,
    env: Option<PathBuf>,
    cwd: &Path,
    configured: Option<PathBuf>,
) -> PathBuf {
    if let Some(dir) = flag {
        return absolutize(dir, cwd);
    }
    if let Some(dir) = env.filter(|d| !d.as_os_str().is_empty()) {
        return absolutize(&dir, cwd);
    }
    if let Some(found) = enclosing_vault(cwd) {
        return found;
    }
    configured.unwrap_or_else(default_vault_dir)
}

/// The nearest ancestor of `dir` (itself included) that holds `.openclaw-wiki/`.
pub fn enclosing_vault(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(VAULT_MARKER_DIR).is_dir())
        .map(Path::to_path_buf)
}

/// `$OPENCLAW_STATE_DIR/wiki/main`, else `~/.openclaw/wiki/main`.
pub fn default_vault_dir() -> PathBuf {
    let state = std::env::var_os("OPENCLAW_STATE_DIR")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home_dir().join(".openclaw"));
    state.join("wiki").join("main")
}

/// The user's home directory (`$HOME`), falling back to `/`.
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// Expand `~` / `~/…`, make relative paths absolute against `cwd` and drop `.` components.
pub fn absolutize(path: &Path, cwd: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    let expanded = if text == "~" {
        home_dir()
    } else if let Some(rest) = text.strip_prefix("~/") {
        home_dir().join(rest)
    } else {
        path.to_path_buf()
    };
    let abs = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    // `components` drops `.` components (`--vault .` is the directory itself, not `dir/.`).
    abs.components().collect()
}

/// Map a serialisation error while writing output: a closed pipe is [`CliError::BrokenPipe`].
fn write_error(e: serde_json::Error) -> CliError {
    if e.io_error_kind() == Some(io::ErrorKind::BrokenPipe) {
        CliError::BrokenPipe
    } else {
        CliError::Runtime(format!("cannot write output: {e}"))
    }
}

/// Buffered stdout for records and text. A closed pipe surfaces as [`CliError::BrokenPipe`],
/// which [`main_wrapper`] turns into a clean exit.
pub struct Output {
    out: io::BufWriter<io::Stdout>,
}

impl Default for Output {
    fn default() -> Self {
        Self::new()
    }
}

impl Output {
    /// Wrap stdout.
    pub fn new() -> Self {
        Output {
            out: io::BufWriter::with_capacity(64 * 1024, io::stdout()),
        }
    }

    /// Write one JSON Lines record.
    pub fn record<T: Serialize + ?Sized>(&mut self, record: &T) -> Result<(), CliError> {
        serde_json::to_writer(&mut self.out, record).map_err(write_error)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    /// Write one pretty JSON document followed by a newline (on one line when `--format jsonl`
    /// asked for it, see [`GlobalArgs::format_among`]).
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CliError> {
        if output::one_line_json() {
            serde_json::to_writer(&mut self.out, value).map_err(write_error)?;
        } else {
            serde_json::to_writer_pretty(&mut self.out, value).map_err(write_error)?;
        }
        self.out.write_all(b"\n")?;
        Ok(())
    }

    /// Write a line of text (a newline is appended).
    pub fn line(&mut self, text: &str) -> Result<(), CliError> {
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    /// Write raw text as is.
    pub fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.out.write_all(text.as_bytes())?;
        Ok(())
    }

    /// Flush buffered output.
    pub fn flush(&mut self) -> Result<(), CliError> {
        self.out.flush()?;
        Ok(())
    }
}

/// Whether the environment variable `name` is set to something other than empty or `0` (the
/// `WIKI_*_TRACE` switches).
pub fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The running program's name (`wiki`, `wiki-apply`, …), for `<program>: <message>` lines.
pub fn program_name() -> String {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "wiki".to_string())
}

/// Print `message` (if any) as a `<program>: <message>` line on stderr.
pub fn notice(message: Option<String>) {
    if let Some(m) = message {
        warn(&program_name(), &m);
    }
}

/// Print a diagnostic line on stderr (`<program>: <message>`). Errors writing to stderr are ignored.
pub fn warn(program: &str, message: &str) {
    let _ = writeln!(io::stderr(), "{program}: {message}");
}

/// Run a command body and map its result to the documented exit codes: `Ok(code)` exits with
/// `code`; errors print `<program>: error: <message>` on stderr and exit 2; a closed stdout pipe
/// exits 0 silently.
pub fn main_wrapper(program: &str, body: impl FnOnce() -> Result<u8, CliError>) -> ExitCode {
    match body() {
        Ok(code) => ExitCode::from(code),
        Err(CliError::BrokenPipe) => ExitCode::from(exit::OK),
        Err(err) => {
            let _ = writeln!(io::stderr(), "{program}: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// Print a clap error and exit with our code: `--help`/`--version` exit 0, usage errors exit 2
/// (a command group without its command, such as `wiki memory`, prints its help and exits 2).
fn exit_on_clap_error(err: clap::Error) -> ! {
    let code = match err.kind() {
        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => exit::OK,
        _ => exit::ERROR,
    };
    let _ = err.print();
    std::process::exit(i32::from(code));
}

/// Parse a clap command line, mapping clap's own exits to ours: `--help`/`--version` print and
/// exit 0, usage errors print clap's message and exit 2.
pub fn parse_args<T: clap::Parser>() -> T {
    T::try_parse().unwrap_or_else(|err| exit_on_clap_error(err))
}

/// [`parse_args`] for a builder-style command: the matches, or clap's output and our exit code.
pub fn get_matches(cmd: clap::Command) -> clap::ArgMatches {
    cmd.try_get_matches()
        .unwrap_or_else(|err| exit_on_clap_error(err))
}

/// Format a timestamp the way JavaScript's `Date.toISOString()` does: UTC, millisecond precision,
/// `Z` suffix (`2026-04-05T12:00:00.000Z`).
pub fn iso_millis(ts: jiff::Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A built-in subcommand of the `wiki` dispatcher, contributed by a library crate.
///
/// Each crate exposes `pub fn commands() -> Vec<Subcommand>`; the dispatcher collects them, so a
/// command's `Args` and `run` are defined once and shared by the component binary and `wiki`.
/// Build entries with [`subcommand!`].
pub struct Subcommand {
    /// Command name (`compile`, `lint` …).
    pub name: &'static str,
    /// Builds the clap command (name, about and arguments).
    pub command: fn() -> clap::Command,
    /// Runs the command from parsed matches.
    pub run: fn(&GlobalArgs, &clap::ArgMatches) -> Result<u8, CliError>,
}

/// Declare a [`Subcommand`] from a clap `Args` type and a `run(&GlobalArgs, &Args)` function:
/// `subcommand!("compile", "Compile the vault", cmd::compile::Args, cmd::compile::run)`.
#[macro_export]
macro_rules! subcommand {
    ($name:literal, $about:literal, $args:ty, $run:path) => {
        $crate::Subcommand {
            name: $name,
            command: || {
                <$args as ::clap::Args>::augment_args(::clap::Command::new($name)).about($about)
            },
            run: |global, matches| {
                let args = <$args as ::clap::FromArgMatches>::from_arg_matches(matches)
                    .map_err(|e| $crate::CliError::Usage(e.to_string()))?;
                $run(global, &args)
            },
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vault_resolution_order() {
        let cwd = Path::new("/tmp/somewhere");
        assert_eq!(
            resolve_vault(Some(Path::new("v")), Some(PathBuf::from("/env")), cwd),
            PathBuf::from("/tmp/somewhere/v")
        );
        assert_eq!(
            resolve_vault(None, Some(PathBuf::from("/env")), cwd),
            PathBuf::from("/env")
        );
    }

    #[test]
    fn iso_format_has_millis() {
        let ts: jiff::Timestamp = "2026-04-05T12:00:00Z".parse().unwrap();
        assert_eq!(iso_millis(ts), "2026-04-05T12:00:00.000Z");
    }

    #[test]
    fn now_accepts_dates() {
        let g = GlobalArgs {
            now: Some("2026-04-05".into()),
            ..Default::default()
        };
        assert_eq!(iso_millis(g.now().unwrap()), "2026-04-05T00:00:00.000Z");
        let bad = GlobalArgs {
            now: Some("yesterday".into()),
            ..Default::default()
        };
        assert!(bad.now().is_err());
    }
}
