//! `wiki chatgpt import --export <dir|conversations.json> [--dry-run]` and
//! `wiki chatgpt rollback <runId>`.

use std::cell::Cell;
use std::path::PathBuf;

use serde_json::json;
use wiki_apply::session::Session;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::chatgpt::{self, ImportBatch};
use crate::commit::{self, Compile, RunOptions};
use crate::problem::Problem;
use crate::runs::{self, RollbackBatch};

/// ChatGPT data exports.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: ChatgptCommand,
}

/// `wiki chatgpt` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ChatgptCommand {
    /// Import the conversations of a ChatGPT export as draft source pages, in one commit.
    ///
    /// Each conversation's active branch becomes `sources/chatgpt-<date>-<id>.md` with a risk
    /// level, labels and (low risk only) preference signals; notes written on an existing page
    /// are kept. The run gets an id (`Run id: chatgpt-…`, the commit's `Wiki-Run` trailer) for
    /// `wiki chatgpt rollback`. Exit status: 0 done, 1 done but some conversations were
    /// skipped, 2 error (unreadable or malformed export).
    Import {
        /// The export directory (its `conversations.json`) or a `.json` file.
        #[arg(long, value_name = "DIR|FILE")]
        export: PathBuf,
        /// Count what would be created, updated and left unchanged; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Undo a ChatGPT import run with a new commit.
    ///
    /// Pages the run created are removed; pages it updated get their previous content back,
    /// keeping edits made since where they do not touch the same lines (pages whose later edits
    /// conflict are left as they are and listed with why; exit status 1). A run already rolled
    /// back changes nothing.
    Rollback {
        /// The run id printed by the import (`chatgpt-<12 hex>`).
        #[arg(value_name = "RUN_ID")]
        run_id: String,
    },
}

/// Run `wiki chatgpt`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    match &args.command {
        ChatgptCommand::Import { export, dry_run } => import(global, export, *dry_run),
        ChatgptCommand::Rollback { run_id } => rollback(global, run_id),
    }
}

/// The conversations of `conversations.json` as page records sorted by page path, and the
/// conversations skipped (no id).
fn load_records(
    path: &std::path::Path,
    source: &str,
) -> Result<(Vec<chatgpt::Record>, Vec<Problem>), CliError> {
    let conversations = chatgpt::load(path).map_err(|p| CliError::Runtime(p.to_string()))?;
    let mut skipped = Vec::new();
    let mut records = Vec::new();
    for (i, c) in conversations.iter().enumerate() {
        match chatgpt::record(c, source) {
            Some(r) => records.push(r),
            None => skipped.push(Problem::new(
                source,
                format!("conversation #{} has no conversation_id; skipped", i + 1),
            )),
        }
    }
    records.sort_by(|a, b| a.page_path.cmp(&b.page_path));
    Ok((records, skipped))
}

fn import(global: &GlobalArgs, export: &std::path::Path, dry_run: bool) -> Result<u8, CliError> {
    let format = super::format(global)?;
    let now = super::now(global)?;
    let session = Session::open(global)?;
    let cwd = std::env::current_dir().map_err(CliError::runtime)?;
    let paths = chatgpt::export_paths(export, &cwd);
    let source = paths.conversations_path.display().to_string();
    let export_path = paths.export_path.display().to_string();
    let (records, skipped) = load_records(&paths.conversations_path, &source)?;
    let run_id = (!dry_run).then(|| runs::new_run_id(&export_path, &now));
    let refresh = Cell::new(false);
    let mut batch = ImportBatch::new(
        &records,
        session.checked_out.then_some(session.vault.as_path()),
        run_id.clone(),
        &refresh,
    );
    let done = if dry_run {
        let base = session.base()?;
        let files = session.files(base)?;
        wiki_apply::session::Batch::prepare(&mut batch, files.as_ref())?;
        None
    } else {
        Some(commit::run(
            &session,
            &mut batch,
            RunOptions {
                now: &now,
                dry_run: false,
                compile: Compile::When(&refresh),
            },
        )?)
    };
    for p in skipped.iter().chain(&batch.problems) {
        p.report();
    }
    let changed = !batch.created.is_empty() || !batch.updated.is_empty();
    let run_id = run_id.filter(|_| changed);
    let skip_count = batch
        .actions
        .iter()
        .filter(|a| a.operation == "skip")
        .count();
    if let (Some(id), Some(done)) = (&run_id, &done) {
        let record = runs::RunRecord {
            version: 1,
            run_id: id.clone(),
            import_type: "chatgpt".into(),
            export_path: export_path.clone(),
            source_path: source.clone(),
            applied_at: now.clone(),
            conversation_count: records.len(),
            created_count: batch.created.len(),
            updated_count: batch.updated.len(),
            skipped_count: skip_count,
            created_paths: batch.created.clone(),
            updated_paths: runs::updated_entries(
                &batch
                    .updated
                    .iter()
                    .map(|u| u.path.clone())
                    .collect::<Vec<_>>(),
            ),
            commit: done.commit.map(|c| c.to_string()),
            rolled_back_at: None,
        };
        let snapshots: Vec<(String, Vec<u8>)> = batch
            .updated
            .iter()
            .map(|u| (u.path.clone(), u.before.clone()))
            .collect();
        if let Err(e) = runs::write_record(&session.vault, &record, &snapshots) {
            wiki_cli::warn(
                &wiki_cli::program_name(),
                &format!(
                    "cannot write the run record (the commit has `Wiki-Run: {id}`, which rollback also finds): {e}"
                ),
            );
        }
        commit::append_log(
            &session.vault,
            "ingest",
            &now,
            json!({
                "sourceType": "chatgpt-export",
                "runId": id,
                "exportPath": export_path,
                "sourcePath": source,
                "conversationCount": records.len(),
                "createdCount": batch.created.len(),
                "updatedCount": batch.updated.len(),
                "skippedCount": skip_count,
            }),
        );
    }
    let compiled = done
        .as_ref()
        .map(|d| d.compiled.clone())
        .unwrap_or_default();
    let mut out = Output::new();
    if format == Format::Json {
        let mut v = json!({
            "dryRun": dry_run,
            "exportPath": export_path,
            "sourcePath": source,
            "conversationCount": records.len(),
            "createdCount": batch.created.len(),
            "updatedCount": batch.updated.len(),
            "skippedCount": skip_count,
            "actions": batch.actions,
            "pagePaths": records.iter().map(|r| r.page_path.as_str()).collect::<Vec<_>>(),
        });
        if let Some(id) = &run_id {
            v["runId"] = json!(id);
        }
        v["indexUpdatedFiles"] = json!(compiled);
        v["commit"] = json!(done.and_then(|d| d.commit).map(|c| c.to_string()));
        out.json(&v)?;
    } else if dry_run {
        out.line(&format!(
            "ChatGPT import dry run scanned {} conversations ({} new, {} updated, {skip_count} unchanged).",
            records.len(),
            batch.created.len(),
            batch.updated.len()
        ))?;
    } else {
        out.line(&format!(
            "ChatGPT import applied {} conversations ({} new, {} updated, {skip_count} unchanged). Refreshed {}.{}",
            records.len(),
            batch.created.len(),
            batch.updated.len(),
            super::index_files(compiled.len()),
            run_id.map(|id| format!(" Run id: {id}.")).unwrap_or_default()
        ))?;
    }
    out.flush()?;
    Ok(if skipped.is_empty() && batch.problems.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}

fn rollback(global: &GlobalArgs, run_id: &str) -> Result<u8, CliError> {
    let format = super::format(global)?;
    let now = super::now(global)?;
    if !runs::valid_run_id(run_id) {
        return Err(CliError::Usage(format!(
            "`{run_id}` is not a run id (letters, digits, `-` and `_`, e.g. chatgpt-0123456789ab)"
        )));
    }
    let session = Session::open(global)?;
    let plan = runs::plan(&session, run_id).map_err(CliError::Runtime)?;
    let mut page_paths: Vec<&str> = plan.pages.iter().map(|p| p.path.as_str()).collect();
    page_paths.sort_unstable();
    let mut out = Output::new();
    if plan.already {
        if format == Format::Json {
            out.json(&json!({
                "runId": run_id,
                "removedCount": 0,
                "restoredCount": 0,
                "pagePaths": page_paths,
                "indexUpdatedFiles": [],
                "alreadyRolledBack": true,
                "commit": null,
            }))?;
        } else {
            out.line(&format!(
                "ChatGPT import run {run_id} was already rolled back."
            ))?;
        }
        out.flush()?;
        return Ok(exit::OK);
    }
    let mut batch = RollbackBatch {
        run_id,
        pages: &plan.pages,
        generated: &plan.generated,
        import_commit: plan.import_commit.clone(),
        removed: Vec::new(),
        restored: Vec::new(),
        not_restored: Vec::new(),
        notes: Vec::new(),
    };
    let done = commit::run(
        &session,
        &mut batch,
        RunOptions {
            now: &now,
            dry_run: false,
            compile: Compile::Always,
        },
    )?;
    let mut record = plan.record.clone();
    record.rolled_back_at = Some(now.clone());
    if let Err(e) = runs::write_record(&session.vault, &record, &[]) {
        wiki_cli::warn(
            &wiki_cli::program_name(),
            &format!("cannot update the run record: {e}"),
        );
    }
    commit::append_log(
        &session.vault,
        "ingest",
        &now,
        json!({
            "sourceType": "chatgpt-export",
            "runId": run_id,
            "rollback": true,
            "removedCount": batch.removed.len(),
            "restoredCount": batch.restored.len(),
        }),
    );
    if format == Format::Json {
        out.json(&json!({
            "runId": run_id,
            "removedCount": batch.removed.len(),
            "restoredCount": batch.restored.len(),
            "pagePaths": page_paths,
            "indexUpdatedFiles": done.compiled,
            "alreadyRolledBack": false,
            "notRestored": batch.not_restored,
            "notes": batch.notes,
            "commit": done.commit.map(|c| c.to_string()),
        }))?;
    } else {
        out.line(&format!(
            "Rolled back ChatGPT import run {run_id} ({} removed, {} restored). Refreshed {}.",
            batch.removed.len(),
            batch.restored.len(),
            super::index_files(done.compiled.len())
        ))?;
        for n in &batch.not_restored {
            out.line(&format!("Not restored: {}: {}.", n.path, n.reason))?;
        }
        for n in &batch.notes {
            out.line(&format!("Note: {}: {}.", n.path, n.reason))?;
        }
    }
    out.flush()?;
    Ok(if batch.not_restored.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}
