//! `wiki ingest <path|dir|url>... [--title T]`.

use std::time::Duration;

use serde_json::json;
use wiki_apply::session::Session;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::commit::{self, Compile, RunOptions};
use crate::fetch::Limits;
use crate::ingest::{self, CollectOptions, IngestBatch, Outcome};
use crate::problem::Problem;
use crate::progress::Progress;
use crate::unchanged;

/// Bring files, directories and URLs into the vault as source pages, in one commit.
///
/// Each file becomes `sources/<slug>.md` (reference §3.2): the file's content in a fenced
/// block, where it came from, and an empty `## Notes` human block. Re-ingesting a file updates
/// its page in place and keeps the notes written there; a file whose content did not change
/// leaves its page alone. A directory brings in every text file below it (hidden entries,
/// `.git`, binary files and symbolic links are left out). An http(s) URL is fetched (when
/// `ingest.allowUrlIngest` allows it: the default). Everything is compiled and committed as one
/// commit (`Wiki-Op: ingest`); inputs that cannot be read are reported as `path[:line]: what is
/// wrong` and the others are still ingested.
///
/// Exit status: 0 done; 1 some files found in a directory could not be read; 2 a named file or
/// URL could not be ingested (the others are), or a usage or runtime error.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Files, directories and http(s) URLs to ingest.
    #[arg(value_name = "PATH|DIR|URL", required = true)]
    pub inputs: Vec<String>,

    /// Page title (a single file or URL only; default: the file name with `-`/`_` as spaces,
    /// or a web page's `<title>`).
    #[arg(long, value_name = "TITLE")]
    pub title: Option<String>,

    /// Seconds a URL may take to answer completely, redirects included.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,

    /// Largest file or URL body ingested, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    pub max_bytes: u64,
}

/// Run `wiki ingest`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = super::format(global)?;
    let clock = global.now()?;
    let now = wiki_cli::iso_millis(clock);
    if args.title.is_some() && args.inputs.len() != 1 {
        return Err(CliError::Usage(
            "--title names the page of a single file or URL; give one input".into(),
        ));
    }
    let session = Session::open(global)?;
    let config = wiki_cli::config::load()?;
    let cwd = std::env::current_dir().map_err(CliError::runtime)?;
    let collected = ingest::collect(
        &args.inputs,
        &CollectOptions {
            title: args.title.as_deref(),
            allow_url: config.settings.ingest.allow_url_ingest,
            config_file: config.source.as_deref(),
            limits: Limits {
                timeout: Duration::from_secs(args.timeout.max(1)),
                max_bytes: args.max_bytes,
            },
            vault: &session.vault,
            cwd: &cwd,
        },
    );
    if args.title.is_some() && collected.had_directory {
        return Err(CliError::Usage(
            "--title names the page of a single file or URL, not of a directory's files".into(),
        ));
    }
    let single = args.inputs.len() == 1 && !collected.had_directory;
    if single && let [only] = collected.problems.as_slice() {
        return Err(CliError::Runtime(only.to_string()));
    }
    for p in &collected.problems {
        p.report();
    }
    // Nothing to write (the record of the last ingest shows it): no lock, no compile.
    let seen = unchanged::Run {
        inputs: &collected.inputs,
        config: unchanged::config_fingerprint(&config),
        now_ms: clock.as_millisecond(),
    };
    if session.checked_out
        && let Some(outcomes) = unchanged::check(&session.vault, &seen)
    {
        let done = Done {
            outcomes: &outcomes,
            problems: &[],
            compiled: &[],
            commit: None,
        };
        return report(format, single, &collected, &done);
    }
    let mut batch = IngestBatch::new(
        &collected.inputs,
        &now,
        session.checked_out.then_some(session.vault.as_path()),
    );
    let progress = Progress::new(collected.inputs.len(), "");
    progress.step("compiling and committing");
    let done = commit::run(
        &session,
        &mut batch,
        RunOptions {
            now: &now,
            dry_run: false,
            compile: Compile::Always,
        },
    )?;
    progress.finish();
    if session.checked_out {
        unchanged::save(&session.vault, &seen, &batch.facts(&done));
    }
    for p in &batch.problems {
        p.report();
    }
    for o in batch.outcomes.iter().filter(|o| o.changed) {
        commit::append_log(
            &session.vault,
            "ingest",
            &now,
            json!({
                "inputPath": o.source_path,
                "pageId": o.page_id,
                "pagePath": o.page_path,
                "bytes": o.bytes,
                "created": o.created,
            }),
        );
    }
    let commit_id = done.commit.map(|c| c.to_string());
    let done = Done {
        outcomes: &batch.outcomes,
        problems: &batch.problems,
        compiled: &done.compiled,
        commit: commit_id,
    };
    report(format, single, &collected, &done)
}

/// What the run did, for its report.
struct Done<'a> {
    outcomes: &'a [Outcome],
    /// Inputs whose page could not be written.
    problems: &'a [Problem],
    /// Files compile changed.
    compiled: &'a [String],
    commit: Option<String>,
}

/// Print the result; the exit status.
fn report(
    format: Format,
    single: bool,
    collected: &ingest::Collected,
    done: &Done<'_>,
) -> Result<u8, CliError> {
    let mut out = Output::new();
    match (single, done.outcomes) {
        (true, [one]) => print_one(&mut out, format, one, done.compiled, done.commit.clone())?,
        _ => print_many(&mut out, format, collected, done)?,
    }
    out.flush()?;
    let failed_named = collected.named_input_failed || !done.problems.is_empty();
    Ok(if failed_named {
        exit::ERROR
    } else if collected.problems.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}

fn print_one(
    out: &mut Output,
    format: Format,
    one: &Outcome,
    compiled: &[String],
    commit: Option<String>,
) -> Result<(), CliError> {
    if format == Format::Json {
        let mut v = serde_json::to_value(one).map_err(CliError::runtime)?;
        v["indexUpdatedFiles"] = json!(compiled);
        v["commit"] = json!(commit);
        return out.json(&v);
    }
    out.line(&format!(
        "Ingested {} into {}. Refreshed {}.",
        one.source_path,
        one.page_path,
        super::index_files(compiled.len())
    ))
}

fn print_many(
    out: &mut Output,
    format: Format,
    collected: &ingest::Collected,
    done: &Done<'_>,
) -> Result<(), CliError> {
    let created = done
        .outcomes
        .iter()
        .filter(|o| o.changed && o.created)
        .count();
    let updated = done
        .outcomes
        .iter()
        .filter(|o| o.changed && !o.created)
        .count();
    let unchanged = done.outcomes.len() - created - updated;
    let mut problems = collected.problems.clone();
    problems.extend(done.problems.iter().cloned());
    if format == Format::Json {
        return out.json(&json!({
            "sources": done.outcomes,
            "createdCount": created,
            "updatedCount": updated,
            "unchangedCount": unchanged,
            "skipped": collected.skipped,
            "problems": problems,
            "indexUpdatedFiles": done.compiled,
            "commit": done.commit,
        }));
    }
    out.line(&format!(
        "Ingested {} into sources/ ({created} new, {updated} updated, {unchanged} unchanged). Refreshed {}.",
        commit::count(done.outcomes.len(), "file"),
        super::index_files(done.compiled.len())
    ))?;
    if !collected.skipped.is_empty() {
        let mut kinds: Vec<&str> = collected
            .skipped
            .iter()
            .map(|s| s.reason.as_str())
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        out.line(&format!(
            "Left out {}: {}.",
            match collected.skipped.len() {
                1 => "1 entry".to_string(),
                n => format!("{n} entries"),
            },
            kinds.join(", ")
        ))?;
    }
    if !problems.is_empty() {
        out.line(&format!(
            "Could not ingest {} (see above).",
            commit::count(problems.len(), "input")
        ))?;
    }
    Ok(())
}
