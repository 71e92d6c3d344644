//! Where a command reads and writes: the vault, its git store, the target branch (the current
//! branch, or `agents/<ID>` with `--agent`), and the commit of a batch (lock, read, apply,
//! compile, one compare-and-swap commit, retry when another writer moved the branch).

use std::path::PathBuf;

use wiki_cli::GlobalArgs;
use wiki_store::{Change, CommitOutcome, CommitRequest, ObjectId, Store, Target, VaultLock};

use crate::agent;
use crate::edit::{FileChange, OpResult, Workspace};
use crate::error::{Error, Result};
use crate::files::{SnapshotFiles, VaultFiles};
use crate::ops::Op;

/// How many times a batch is re-read and re-applied when the branch moved under it.
pub const MAX_ATTEMPTS: usize = 5;

/// The vault and branch a command works on.
pub struct Session {
    /// The git store of the vault.
    pub store: Store,
    /// The vault directory (canonical).
    pub vault: PathBuf,
    /// Where commits go.
    pub target: Target,
    /// The target branch's short name (`main`, `agents/x`); `None` for a detached `HEAD`.
    pub branch: Option<String>,
    /// The agent id written to `Wiki-Agent` trailers: `--agent`, else the current branch.
    pub agent: String,
    /// Whether the target is the checked-out branch (reads see the work tree, human edits
    /// included; writes update the work tree and index).
    pub checked_out: bool,
}

impl Session {
    /// Open the vault of `global` and select the target branch (`--agent` / `$WIKI_AGENT`).
    pub fn open(global: &GlobalArgs) -> Result<Session> {
        let vault = global
            .vault_dir()
            .map_err(|e| Error::Runtime(e.to_string()))?;
        if !vault.is_dir() {
            return Err(Error::Runtime(format!(
                "{}: no vault here (run `wiki init` first, or pass --vault DIR)",
                vault.display()
            )));
        }
        let store = Store::open(&vault)?;
        let agent_id = match global
            .agent_id()
            .map_err(|e| Error::Runtime(e.to_string()))?
        {
            Some(raw) => Some(agent::normalize_agent_id(&raw)?),
            None => None,
        };
        Self::with_agent(store, agent_id)
    }

    /// A session on `store` for `agent` (`None`: the current branch).
    pub fn with_agent(store: Store, agent_id: Option<String>) -> Result<Session> {
        let vault = store.vault_dir().to_path_buf();
        Ok(match agent_id {
            Some(id) => {
                // Where the agent's vault is read is the store's one decision (the tip a batch
                // starts from is read again for every attempt: see `base`).
                let wiki_store::AgentBranch { branch, state } = store.agent_branch(&id)?;
                let checked_out = state == wiki_store::AgentState::CheckedOut;
                Session {
                    store,
                    vault,
                    target: Target::Branch(branch.clone()),
                    branch: Some(branch),
                    agent: id,
                    checked_out,
                }
            }
            None => {
                let current = store.current_branch()?;
                Session {
                    // `Wiki-Agent`: the agent whose branch is checked out, else the branch name.
                    agent: match current.as_deref() {
                        Some(b) => b
                            .strip_prefix(agent::BRANCH_PREFIX)
                            .unwrap_or(b)
                            .to_string(),
                        None => "HEAD".to_string(),
                    },
                    store,
                    vault,
                    target: Target::Head,
                    branch: current,
                    checked_out: true,
                }
            }
        })
    }

    /// The commit the target branch starts from now: its tip, or (for an agent branch that does
    /// not exist yet) the current `HEAD` commit it will be created from. `None`: no commits yet.
    pub fn base(&self) -> Result<Option<ObjectId>> {
        match &self.target {
            Target::Head => Ok(self.head_commit()?),
            Target::Branch(b) => match self.store.branch_tip(b)? {
                Some(tip) => Ok(Some(tip)),
                None => self.head_commit(),
            },
        }
    }

    fn head_commit(&self) -> Result<Option<ObjectId>> {
        match self.store.current_branch()? {
            Some(b) => Ok(self.store.branch_tip(&b)?),
            None => Ok(Some(self.store.resolve("HEAD")?)),
        }
    }

    /// The files a batch starts from: the work tree for the checked-out branch, else the
    /// commit `base`.
    pub fn files(&self, base: Option<ObjectId>) -> Result<Box<dyn VaultFiles + '_>> {
        if self.checked_out {
            Ok(Box::new(SnapshotFiles::worktree(
                self.vault.clone(),
                &self.store,
            )?))
        } else {
            Ok(Box::new(SnapshotFiles::commit(
                &self.store,
                base,
                &self.agent,
            )?))
        }
    }

    /// Commit `req` under `lock`, keeping the derived compiled caches out of the commit
    /// (`wiki_digest::derived`): they are written after the commit, to the work tree for the
    /// checked-out branch, else under `.openclaw-wiki/cache/agents/<ID>/`. On a branch that still
    /// tracks them, the commit also removes them from git (the files stay on disk).
    pub fn commit(&self, lock: &VaultLock, req: &CommitRequest<'_>) -> Result<CommitOutcome> {
        hand_edit_hook(&self.vault);
        let prepared = wiki_digest::derived::Prepared::for_commit(
            &self.store,
            req.expected_parent,
            self.checked_out,
            req.changes,
        )?;
        let tracked = CommitRequest {
            target: req.target.clone(),
            changes: &prepared.commit,
            subject: req.subject.clone(),
            body: req.body.clone(),
            trailers: req.trailers.clone(),
            expected_parent: req.expected_parent,
            create_from: req.create_from.clone(),
            read: req.read,
        };
        let agent = (!self.checked_out).then_some(self.agent.as_str());
        // The derived files (tens of MB on a large vault) are written while the commit runs and
        // renamed into place once it is made.
        let (done, written) =
            wiki_digest::derived::commit_with_files(&prepared, &self.vault, agent, || {
                if tracked.changes.is_empty() {
                    // Only derived caches changed (a batch that changed no page): no commit.
                    return Ok(CommitOutcome::default());
                }
                self.store.commit_locked(lock, &tracked)
            })?;
        wiki_cli::notice(wiki_digest::context::human_edits_notice(&done));
        wiki_cli::notice(done.packing_message());
        written
            .map_err(|e| Error::Runtime(wiki_digest::derived::write_failure(done.commit, &e)))?;
        Ok(done)
    }

    /// The revision to read committed state from (`HEAD` or the agent branch; falls back to
    /// `HEAD` for an agent branch that does not exist yet).
    pub fn rev(&self) -> Result<Option<String>> {
        Ok(self.base()?.map(|id| id.to_string()))
    }
}

/// Generated files (compile) for a set of page changes.
pub trait Compiler {
    /// The extra changes compile makes when `changes` are applied on top of `files`.
    fn compile(
        &self,
        files: &dyn VaultFiles,
        changes: &[FileChange],
        now: &str,
    ) -> Result<Vec<FileChange>>;
}

/// A compiler that generates nothing (`--no-compile`).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoCompile;

impl Compiler for NoCompile {
    fn compile(&self, _: &dyn VaultFiles, _: &[FileChange], _: &str) -> Result<Vec<FileChange>> {
        Ok(Vec::new())
    }
}

/// The `wiki compile` of `wiki-digest`: Related blocks, indexes, dashboards, `agent-digest.json`
/// and `claims.jsonl`, computed on the files with the batch's changes overlaid (reference §4).
#[derive(Debug, Default, Clone, Copy)]
pub struct DigestCompiler {
    /// Fill in [`FileChange::before`] of the files compile changes (diffs of `--dry-run`);
    /// otherwise it is `None` for them (an operation would read the whole digest and the
    /// dashboards again only to drop them).
    pub keep_before: bool,
    /// The OpenClaw config's render settings (so an operation compiles as `wiki compile` does).
    pub render: wiki_digest::RenderConfig,
}

impl Compiler for DigestCompiler {
    fn compile(
        &self,
        files: &dyn VaultFiles,
        changes: &[FileChange],
        now: &str,
    ) -> Result<Vec<FileChange>> {
        let Some(base) = files.snapshot() else {
            return Ok(Vec::new());
        };
        let now: jiff::Timestamp = now
            .parse()
            .map_err(|e| Error::Runtime(format!("bad timestamp {now}: {e}")))?;
        let mut trace = Tracer::new(trace_enabled());
        let mut snap = base.clone();
        // An agent's first operation starts from the checked-out branch's compiled caches (not
        // a dry run: its diff shows the agent's own files as they are).
        if !self.keep_before {
            wiki_digest::derived::seed_agent_files(&mut snap);
        }
        let overlay: Vec<Change> = changes
            .iter()
            .map(|c| Change {
                path: c.path.clone(),
                content: c.after.clone(),
                blob: c.blob,
            })
            .collect();
        snap.overlay(&overlay);
        trace.phase("compile: snapshot copy");
        let mut opts = wiki_digest::CompileOptions::new(now).with_render(self.render);
        // Nothing an operation does reads the links of the dashboards it re-renders.
        opts.report_links = false;
        // Parsed pages of the last compile are reused (keyed by path and blob id) when the
        // files come from the work tree; the cache is refreshed for the next run, on another
        // thread while the batch commits (`apply_batch` waits for it before unlocking).
        let cache_home = match base.origin() {
            wiki_vault::snapshot::Origin::Worktree(dir) => Some(dir.clone()),
            // An agent's branch read from git: its own parse cache.
            _ => base.parse_cache_vault().map(std::path::Path::to_path_buf),
        };
        if let Some(dir) = &cache_home {
            // A previous save aside writes the cache file this compile may read.
            wiki_digest::compile::finish_saving_aside();
            opts = opts.with_parse_cache(dir, true);
        }
        let result = wiki_digest::compile(&snap, &opts);
        // A dry run writes nothing, the parse cache included: it only reads it.
        let changes = if self.keep_before {
            result.changes
        } else {
            result.save_parse_cache_aside(snap, "wiki apply")
        };
        trace.phase("compile: compile and parse cache");
        let out = changes
            .into_iter()
            .map(|c| {
                let before = if self.keep_before {
                    files.read(&c.path)?.map(std::borrow::Cow::into_owned)
                } else {
                    None
                };
                Ok(FileChange {
                    before,
                    path: c.path,
                    after: c.content,
                    blob: c.blob,
                })
            })
            .collect();
        trace.phase("compile: before");
        out
    }
}

/// Run `compiler` on `page_changes`: compiled content of a changed page replaces its `after`;
/// the other compiled files are returned, with the paths of every file compile changed (pages
/// of `page_changes` included: the original's `updatedFiles`).
pub fn compile_into(
    compiler: &dyn Compiler,
    files: &dyn VaultFiles,
    page_changes: &mut Vec<FileChange>,
    now: &str,
) -> Result<(Vec<FileChange>, Vec<String>)> {
    // A batch that changes no page still compiles (as the original's operations always do):
    // pages edited by hand since the last compile are then reflected, and committed.
    let mut extra = Vec::new();
    let mut touched = Vec::new();
    for c in compiler.compile(files, page_changes, now)? {
        touched.push(c.path.clone());
        match page_changes.iter_mut().find(|p| p.path == c.path) {
            Some(p) => {
                p.after = c.after;
                p.blob = c.blob;
            }
            None => extra.push(c),
        }
    }
    page_changes.retain(|c| c.after != c.before);
    Ok((extra, touched))
}

/// One operation of a batch with its input line.
#[derive(Debug, Clone)]
pub struct LineOp {
    /// 1-based input line.
    pub line: usize,
    /// The validated operation.
    pub op: Op,
}

/// What a batch did.
#[derive(Debug, Clone, Default)]
pub struct BatchOutcome {
    /// One result per operation, in input order.
    pub results: Vec<OpResult>,
    /// Page files the operations changed.
    pub page_changes: Vec<FileChange>,
    /// Generated files compile changed (files not changed by the operations themselves).
    pub compile_changes: Vec<FileChange>,
    /// Every file compile changed, in write order (pages the operations changed included).
    pub compiled: Vec<String>,
    /// The commit (`None`: nothing changed, or a dry run).
    pub commit: Option<ObjectId>,
    /// A commit recording human edits made first, if any.
    pub human_commit: Option<ObjectId>,
    /// How many times the batch was re-applied because another writer moved the branch.
    pub retries: usize,
}

/// Options of [`apply_batch`].
pub struct BatchOptions<'c> {
    /// Where operation errors point (`<stdin>`, a file name); `None`: no location (CLI flags).
    pub origin: Option<String>,
    /// ISO timestamp for `updatedAt`.
    pub now: String,
    /// Compute everything, write nothing.
    pub dry_run: bool,
    /// Regenerates compiled files.
    pub compiler: &'c dyn Compiler,
    /// Print phase timings on stderr (`trace: <phase> <ms> ms`; `WIKI_APPLY_TRACE=1`).
    pub trace: bool,
}

/// Whether `WIKI_APPLY_TRACE` asks for phase timings.
pub fn trace_enabled() -> bool {
    wiki_cli::env_flag("WIKI_APPLY_TRACE")
}

/// Phase timer for `WIKI_APPLY_TRACE`.
struct Tracer {
    on: bool,
    start: std::time::Instant,
    last: std::time::Instant,
}

impl Tracer {
    fn new(on: bool) -> Tracer {
        let now = std::time::Instant::now();
        Tracer {
            on,
            start: now,
            last: now,
        }
    }

    fn phase(&mut self, name: &str) {
        if self.on {
            let now = std::time::Instant::now();
            wiki_cli::warn(
                "trace",
                &format!("{name} {:.1} ms", (now - self.last).as_secs_f64() * 1e3),
            );
            self.last = now;
        }
    }

    fn total(&self) {
        if self.on {
            wiki_cli::warn(
                "trace",
                &format!("total {:.1} ms", self.start.elapsed().as_secs_f64() * 1e3),
            );
        }
    }
}

/// Waits, when dropped, for the parse-cache save a compile left running
/// ([`wiki_digest::compile::finish_saving_aside`]).
struct SaveAside;

impl Drop for SaveAside {
    fn drop(&mut self) {
        wiki_digest::compile::finish_saving_aside();
    }
}

/// Apply `ops` as one batch: take the vault lock, read the branch, apply every operation in
/// memory (the first failing one aborts the batch: nothing is written), compile, and make one
/// commit with a trailer set per changed operation. When another writer moved the branch between
/// the read and the compare-and-swap, the batch is re-read and re-applied on the new tip (up to
/// [`MAX_ATTEMPTS`] times), so no update is lost.
pub fn apply_batch(
    session: &Session,
    ops: &[LineOp],
    opts: &BatchOptions<'_>,
) -> Result<BatchOutcome> {
    let mut batch = OpsBatch {
        ops,
        origin: opts.origin.as_deref(),
        now: &opts.now,
        results: Vec::new(),
    };
    let done = commit_batch(session, &mut batch, opts)?;
    Ok(BatchOutcome {
        results: batch.results,
        page_changes: done.page_changes,
        compile_changes: done.compile_changes,
        compiled: done.compiled,
        commit: done.commit,
        human_commit: done.human_commit,
        retries: done.retries,
    })
}

/// Operations applied in order to a [`Workspace`]: the [`Batch`] of `wiki apply`.
struct OpsBatch<'a> {
    ops: &'a [LineOp],
    origin: Option<&'a str>,
    now: &'a str,
    results: Vec<OpResult>,
}

impl Batch for OpsBatch<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>> {
        let mut ws = Workspace::new(files, self.now);
        self.results = Vec::with_capacity(self.ops.len());
        for lop in self.ops {
            let result = ws.apply(&lop.op).map_err(|e| match self.origin {
                Some(origin) => e.at(origin, lop.line),
                None => e,
            })?;
            self.results.push(result);
        }
        Ok(ws.changes())
    }

    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>) {
        (
            subject(&self.results, compiled),
            trailers(&self.results, compiled, agent),
        )
    }
}

/// A set of file changes made as one commit by [`commit_batch`]: operations (`wiki apply`),
/// an import (`wiki ingest`, …), anything that decides what to write from the vault as it is.
pub trait Batch {
    /// The files to change, read from `files` (the branch as it is now, under the vault lock).
    /// Called again, from scratch, when another writer moved the branch before the commit.
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>>;
    /// The commit subject and trailers, once the changes are compiled: `compiled` holds the
    /// files compile changed besides the prepared ones.
    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>);
}

/// What [`commit_batch`] did.
#[derive(Debug, Clone, Default)]
pub struct Committed {
    /// The prepared files that changed (with their compiled content).
    pub page_changes: Vec<FileChange>,
    /// Generated files compile changed (files not changed by the batch itself).
    pub compile_changes: Vec<FileChange>,
    /// Every file compile changed, in write order (prepared pages included).
    pub compiled: Vec<String>,
    /// The commit (`None`: nothing changed, or a dry run).
    pub commit: Option<ObjectId>,
    /// A commit recording human edits made first, if any.
    pub human_commit: Option<ObjectId>,
    /// How many times the batch was prepared again because another writer moved the branch.
    pub retries: usize,
}

/// Make `batch` one commit: take the vault lock, read the branch, prepare the changes, compile
/// them (Related blocks, indexes, dashboards, derived caches) and commit everything with the
/// batch's message and a compare-and-swap on the tip that was read. When another writer moved
/// the branch in between, the batch is prepared again on the new tip (up to [`MAX_ATTEMPTS`]
/// times). A dry run (`opts.dry_run`) computes everything and writes nothing; a batch that
/// changes nothing (compile included) makes no commit.
pub fn commit_batch(
    session: &Session,
    batch: &mut dyn Batch,
    opts: &BatchOptions<'_>,
) -> Result<Committed> {
    let mut trace = Tracer::new(opts.trace);
    let lock = if opts.dry_run {
        None
    } else {
        Some(session.store.lock()?)
    };
    // Declared after the lock, so dropped before it: the parse cache a compile saves aside is
    // written by the time the lock is released, whatever path this function leaves by.
    let _saved = SaveAside;
    trace.phase("lock");
    let mut retries = 0;
    loop {
        let base = session.base()?;
        let files = session.files(base)?;
        trace.phase("snapshot");
        let mut page_changes = batch.prepare(files.as_ref())?;
        trace.phase("operations");
        let (compile_changes, compiled) =
            compile_into(opts.compiler, files.as_ref(), &mut page_changes, &opts.now)?;
        trace.phase("compile");
        check_page_sizes(&page_changes)?;
        let mut outcome = Committed {
            page_changes,
            compile_changes,
            compiled,
            retries,
            ..Committed::default()
        };
        let Some(lock) = &lock else {
            return Ok(outcome);
        };
        if outcome.page_changes.is_empty() && outcome.compile_changes.is_empty() {
            return Ok(outcome);
        }
        let (subject, trailers) = batch.message(&outcome.compile_changes, &session.agent);
        // What the batch read of the files it replaces: a hand edit made since is not written
        // over (the store refuses, and the batch runs again on the new bytes).
        let read = files.read_state(
            &mut outcome
                .page_changes
                .iter()
                .chain(&outcome.compile_changes)
                .map(|c| c.path.as_str()),
        );
        // The contents move into the commit request and back (the compiled caches alone are
        // tens of MB on large vaults: no copy).
        let changes: Vec<Change> = outcome
            .page_changes
            .iter_mut()
            .chain(&mut outcome.compile_changes)
            .map(|c| Change {
                path: c.path.clone(),
                content: c.after.take(),
                blob: c.blob,
            })
            .collect();
        let req = CommitRequest {
            target: session.target.clone(),
            changes: &changes,
            subject,
            body: None,
            trailers,
            expected_parent: base,
            create_from: None,
            read: Some(&read),
        };
        let committed = session.commit(lock, &req);
        for (c, back) in outcome
            .page_changes
            .iter_mut()
            .chain(&mut outcome.compile_changes)
            .zip(changes)
        {
            c.after = back.content;
        }
        trace.phase("commit");
        match committed {
            Ok(done) if done.kept.is_empty() => {
                outcome.commit = done.commit;
                outcome.human_commit = done.human_commit;
                trace.total();
                return Ok(outcome);
            }
            // Edited by hand while the files were replaced: the edit was left in place; the
            // batch runs again, on top of it (its next commit records the edit first).
            Ok(done) if retries + 1 < MAX_ATTEMPTS => {
                retries += 1;
                drop(done);
            }
            Ok(done) => {
                return Err(Error::Runtime(format!(
                    "{} kept changing on disk while this batch wrote it ({MAX_ATTEMPTS} attempts): the hand edits were left as they are; the batch's version is in commit {}: run it again",
                    done.kept.join(", "),
                    done.commit.map(|c| c.to_string()).unwrap_or_default()
                )));
            }
            Err(e) if e.is_conflict() && retries + 1 < MAX_ATTEMPTS => {
                retries += 1;
            }
            Err(e) if e.is_conflict() => {
                return Err(Error::Runtime(format!(
                    "{e}; the branch or its files kept changing under this batch ({MAX_ATTEMPTS} attempts), nothing was written: run it again"
                )));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Test hook: with `WIKI_TEST_HAND_EDIT=<vault-relative path>`, the first commit of the process
/// appends a line to that work-tree file just before it commits: a person saving the page
/// after the command read it, deterministically (the regression tests of the hand-edit check).
fn hand_edit_hook(vault: &std::path::Path) {
    static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let Some(rel) = std::env::var_os("WIKI_TEST_HAND_EDIT") else {
        return;
    };
    if DONE.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .append(true)
        .open(vault.join(rel))
    {
        let _ = f.write_all(b"hand edit during the command\n");
    }
}

/// Refuse pages the readers would refuse: a batch that would make a page larger than
/// [`wiki_parse::page::MAX_PAGE_BYTES`] writes nothing (such a page would drop out of every
/// index and lookup).
fn check_page_sizes(page_changes: &[FileChange]) -> Result<()> {
    for c in page_changes {
        let len = c.after.as_ref().map_or(0, Vec::len);
        if len > wiki_parse::page::MAX_PAGE_BYTES && wiki_vault::is_page_path(&c.path) {
            return Err(Error::Invalid(format!(
                "{}: the page would be {len} bytes, over the page size limit of {} bytes (16 MiB) that every command reading the vault enforces; nothing was written",
                c.path,
                wiki_parse::page::MAX_PAGE_BYTES
            )));
        }
    }
    Ok(())
}

/// The committed files among `compiled` (not the derived caches).
fn committed_paths(compiled: &[FileChange]) -> impl Iterator<Item = &str> {
    compiled
        .iter()
        .map(|c| c.path.as_str())
        .filter(|p| !wiki_digest::derived::is_derived(p))
}

/// The commit subject of a batch; a batch that changed no page commits only what its compile
/// changed (`compiled`), under `wiki compile`'s subject.
pub fn subject(results: &[OpResult], compiled: &[FileChange]) -> String {
    let changed: Vec<&OpResult> = results.iter().filter(|r| r.changed).collect();
    match changed.as_slice() {
        [] => wiki_digest::context::compile_subject(committed_paths(compiled).count()),
        [one] => format!("wiki apply: {} {}", one.op.as_str(), one.page_path),
        many => {
            let mut pages: Vec<&str> = many.iter().map(|r| r.page_path.as_str()).collect();
            pages.sort_unstable();
            pages.dedup();
            format!(
                "wiki apply: {} operations on {} page{}",
                many.len(),
                pages.len(),
                if pages.len() == 1 { "" } else { "s" }
            )
        }
    }
}

/// One trailer set per changed operation: `Wiki-Op`, `Wiki-Page`, `Wiki-Claim`…, `Wiki-Agent`,
/// `Wiki-Source`…; when no operation changed anything, `wiki compile`'s set for the compiled
/// files (`Wiki-Op: compile`, `Wiki-Page`… at most
/// [`wiki_digest::context::MAX_PAGE_TRAILERS`], `Wiki-Pages-More`, `Wiki-Agent`).
pub fn trailers(
    results: &[OpResult],
    compiled: &[FileChange],
    agent: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if results.iter().all(|r| !r.changed) {
        out.push(("Wiki-Op".to_string(), "compile".to_string()));
        out.extend(wiki_digest::context::page_trailers(committed_paths(
            compiled,
        )));
        out.push(("Wiki-Agent".to_string(), agent.to_string()));
        return out;
    }
    for r in results.iter().filter(|r| r.changed) {
        out.push(("Wiki-Op".to_string(), r.op.as_str().to_string()));
        out.push(("Wiki-Page".to_string(), r.page_path.clone()));
        for c in &r.claims {
            out.push(("Wiki-Claim".to_string(), c.clone()));
        }
        out.push(("Wiki-Agent".to_string(), agent.to_string()));
        for s in &r.sources {
            out.push(("Wiki-Source".to_string(), s.clone()));
        }
    }
    out
}

/// Split a commit's trailers into per-operation sets (each starts at a `Wiki-Op`).
pub fn trailer_sets(trailers: &[(String, String)]) -> Vec<Vec<(String, String)>> {
    let mut sets: Vec<Vec<(String, String)>> = Vec::new();
    for (k, v) in trailers {
        if k.eq_ignore_ascii_case("Wiki-Op") || sets.is_empty() {
            sets.push(Vec::new());
        }
        if let Some(last) = sets.last_mut() {
            last.push((k.clone(), v.clone()));
        }
    }
    sets
}
