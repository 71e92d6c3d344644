//! `wiki okf import <dir>`.

use std::path::PathBuf;

use serde_json::json;
use wiki_apply::session::Session;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::commit::{self, Compile, RunOptions};
use crate::okf::{self, OkfBatch};

/// Open Knowledge Format bundles.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: OkfCommand,
}

/// `wiki okf` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum OkfCommand {
    /// Import an unpacked OKF v0.1 bundle as concept pages, in one commit.
    ///
    /// Every `.md` file except `index.md` and `log.md` is a concept and needs a non-empty
    /// `type`; concepts become `concepts/okf-<bundle>-<concept>-<hash>.md`, links between them
    /// are rewritten to the generated pages (`okf-link` relationships) and the producer's
    /// frontmatter is kept. Problems are warnings (`path: message` on stderr) and the rest is
    /// imported; pages of concepts gone from the bundle are removed only by a run without
    /// warnings. Exit status: 0 done, 1 done with warnings, 2 error.
    Import {
        /// The unpacked bundle directory.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Run `wiki okf`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let OkfCommand::Import { dir } = &args.command;
    let format = super::format(global)?;
    let now = super::now(global)?;
    let session = Session::open(global)?;
    let cwd = std::env::current_dir().map_err(CliError::runtime)?;
    let path = crate::guard::absolute(dir, &cwd);
    if !path.is_dir() {
        return Err(CliError::Usage(
            "wiki okf import expects an unpacked OKF bundle directory.".into(),
        ));
    }
    let bundle = okf::read_bundle(&path);
    let mut batch = OkfBatch::new(
        &bundle,
        &now,
        session.checked_out.then_some(session.vault.as_path()),
    );
    let done = commit::run(
        &session,
        &mut batch,
        RunOptions {
            now: &now,
            dry_run: false,
            compile: Compile::Always,
        },
    )?;
    for w in &batch.warnings {
        wiki_cli::warn(
            &wiki_cli::program_name(),
            &format!(
                "{}: {} ({})",
                path.join(&w.path).display(),
                w.message,
                w.code
            ),
        );
    }
    let page_paths: Vec<&str> = batch.imported.iter().map(|i| i.path.as_str()).collect();
    let updated = batch
        .imported
        .iter()
        .filter(|i| i.changed && !i.created)
        .count();
    let bundle_path = path.display().to_string();
    commit::append_log(
        &session.vault,
        "okf-import",
        &now,
        json!({
            "bundlePath": bundle_path,
            "bundleName": bundle.name,
            "importedCount": page_paths.len(),
            "updatedCount": updated,
            "removedCount": batch.removed.len(),
            "skippedCount": batch.warnings.len(),
            "pagePaths": page_paths,
            "removedPagePaths": batch.removed,
        }),
    );
    let mut out = Output::new();
    if format == Format::Json {
        let mut v = json!({
            "bundlePath": bundle_path,
            "bundleName": bundle.name,
        });
        if let Some(version) = &bundle.version {
            v["okfVersion"] = json!(version);
        }
        for (k, val) in [
            ("importedCount", json!(page_paths.len())),
            ("updatedCount", json!(updated)),
            ("removedCount", json!(batch.removed.len())),
            ("skippedCount", json!(batch.warnings.len())),
            ("pagePaths", json!(page_paths)),
            ("removedPagePaths", json!(batch.removed)),
            ("warnings", json!(batch.warnings)),
            ("indexUpdatedFiles", json!(done.compiled)),
            ("commit", json!(done.commit.map(|c| c.to_string()))),
        ] {
            v[k] = val;
        }
        out.json(&v)?;
    } else {
        out.line(&format!(
            "Imported {} from {bundle_path} into memory wiki. Updated {updated}; removed {}; skipped {}; refreshed {}.",
            commit::count(page_paths.len(), "OKF concept"),
            batch.removed.len(),
            batch.warnings.len(),
            super::index_files(done.compiled.len())
        ))?;
    }
    out.flush()?;
    Ok(if batch.warnings.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}
