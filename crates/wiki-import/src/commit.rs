//! How an import becomes one commit: the batch path of `wiki apply`
//! ([`wiki_apply::session::commit_batch`]: vault lock, the branch's files, the import's changes,
//! compile, one compare-and-swap commit, retried when another writer moved the branch), with the
//! import's subject and trailers; plus the local operation log.

use std::cell::Cell;
use std::io::Write;
use std::path::Path;

use serde_json::Value;
use wiki_apply::edit::FileChange;
use wiki_apply::files::VaultFiles;
use wiki_apply::session::{
    self, Batch, BatchOptions, Committed, Compiler, DigestCompiler, NoCompile, Session,
};
use wiki_cli::CliError;

/// How to run an import batch.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions<'a> {
    /// ISO timestamp of the run.
    pub now: &'a str,
    /// Compute everything, write nothing.
    pub dry_run: bool,
    /// Whether to refresh Related blocks, indexes, dashboards and caches in the same commit.
    pub compile: Compile<'a>,
}

/// When an import compiles.
#[derive(Debug, Clone, Copy)]
pub enum Compile<'a> {
    /// Always (ingest, OKF, ChatGPT: the original always compiles after them).
    Always,
    /// Never (`ingest.autoCompile: false` for bridge and unsafe-local imports).
    Never,
    /// When the batch sets the flag while preparing (the post-import refresh of §11.5).
    When(&'a std::cell::Cell<bool>),
}

/// A compiler that runs only when a flag set by the batch says so (the post-import refresh of
/// §11.5: nothing imported, updated or removed and every index present → no compile).
pub struct OnlyIf<'a> {
    /// The compiler to run.
    pub inner: &'a dyn Compiler,
    /// Whether to run it.
    pub flag: &'a Cell<bool>,
}

impl Compiler for OnlyIf<'_> {
    fn compile(
        &self,
        files: &dyn VaultFiles,
        changes: &[FileChange],
        now: &str,
    ) -> wiki_apply::error::Result<Vec<FileChange>> {
        if self.flag.get() {
            self.inner.compile(files, changes, now)
        } else {
            Ok(Vec::new())
        }
    }
}

/// Make `batch` one commit on the session's branch.
pub fn run(
    session: &Session,
    batch: &mut dyn Batch,
    opts: RunOptions<'_>,
) -> Result<Committed, CliError> {
    let digest = DigestCompiler {
        keep_before: opts.dry_run,
        render: wiki_digest::RenderConfig::load()?,
    };
    let only_if;
    let compiler: &dyn session::Compiler = match opts.compile {
        Compile::Always => &digest,
        Compile::Never => &NoCompile,
        Compile::When(flag) => {
            only_if = OnlyIf {
                inner: &digest,
                flag,
            };
            &only_if
        }
    };
    let done = session::commit_batch(
        session,
        batch,
        &BatchOptions {
            origin: None,
            now: opts.now.to_string(),
            dry_run: opts.dry_run,
            compiler,
            trace: session::trace_enabled(),
        },
    )?;
    Ok(done)
}

/// The commit message of an import: `subject` and the trailers `Wiki-Op: <op>`, one
/// `Wiki-Page` per changed page (at most [`wiki_digest::context::MAX_PAGE_TRAILERS`], then
/// `Wiki-Pages-More`), `extra`, `Wiki-Agent`. When the import changed no page (only what compile
/// refreshed), `wiki compile`'s subject and trailers.
pub fn message(
    op: &str,
    subject: String,
    changes: &[FileChange],
    compiled: &[FileChange],
    extra: &[(String, String)],
    agent: &str,
) -> (String, Vec<(String, String)>) {
    let pages: Vec<&str> = changes
        .iter()
        .map(|c| c.path.as_str())
        .filter(|p| !wiki_digest::derived::is_derived(p))
        .collect();
    let mut trailers = Vec::new();
    if pages.is_empty() {
        let compiled: Vec<&str> = compiled
            .iter()
            .map(|c| c.path.as_str())
            .filter(|p| !wiki_digest::derived::is_derived(p))
            .collect();
        trailers.push(("Wiki-Op".to_string(), "compile".to_string()));
        trailers.extend(wiki_digest::context::page_trailers(
            compiled.iter().copied(),
        ));
        trailers.push(("Wiki-Agent".to_string(), agent.to_string()));
        return (
            wiki_digest::context::compile_subject(compiled.len()),
            trailers,
        );
    }
    trailers.push(("Wiki-Op".to_string(), op.to_string()));
    trailers.extend(wiki_digest::context::page_trailers(pages.iter().copied()));
    trailers.extend(extra.iter().cloned());
    trailers.push(("Wiki-Agent".to_string(), agent.to_string()));
    (subject, trailers)
}

/// `n` and a noun, pluralised with `s` (`1 page`, `2 pages`).
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Append `{type, timestamp, details}` to the local operation log `.openclaw-wiki/log.jsonl`
/// (git-ignored; git history is the durable log). A log that cannot be written is reported on
/// stderr and otherwise ignored: the import itself is committed. Never written through a
/// symbolic link.
pub fn append_log(vault: &Path, kind: &str, timestamp: &str, details: Value) {
    let mut entry = serde_json::Map::new();
    entry.insert("type".into(), Value::String(kind.into()));
    entry.insert("timestamp".into(), Value::String(timestamp.into()));
    entry.insert("details".into(), details);
    let mut line = Value::Object(entry).to_string();
    line.push('\n');
    let path = vault.join(wiki_parse::layout::LOG_PATH);
    if let Err(e) = append(&path, line.as_bytes()) {
        wiki_cli::warn(
            &wiki_cli::program_name(),
            &format!(
                "{}: cannot append to the operation log: {e}",
                path.display()
            ),
        );
    }
}

fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    opts.open(path)?.write_all(bytes)
}
