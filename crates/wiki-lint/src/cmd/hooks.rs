//! `wiki hooks`: install the git hooks that run `wiki-lint`.

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::diagnostic::Deny;
use crate::hooks::{self, InstallStatus};

/// Manage the git hooks that lint the vault.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// `wiki hooks` actions.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Action {
    /// Install a pre-commit hook that runs `wiki-lint --staged` and blocks commits with lint
    /// errors. Honours core.hooksPath; an existing pre-commit hook is kept as pre-commit.local
    /// and runs first. Re-running it is safe (it updates our hook, nothing else).
    Install(InstallArgs),
}

/// `wiki hooks install` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct InstallArgs {
    /// Block the commit on findings of at least this severity: `error` (default) or `warning`.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "error")]
    pub deny: Deny,
}

#[derive(serde::Serialize)]
struct HookRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    hook: &'static str,
    #[serde(flatten)]
    outcome: &'a hooks::InstallOutcome,
}

/// Run `wiki hooks`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json, Format::Jsonl])?;
    let Action::Install(install) = &args.action;
    let vault = crate::repo_vault(global)?;
    let outcome = hooks::install(&vault, install.deny).map_err(CliError::runtime)?;
    let mut out = Output::new();
    let record = HookRecord {
        kind: "hook",
        hook: "pre-commit",
        outcome: &outcome,
    };
    match format {
        Format::Json => out.json(&record)?,
        Format::Jsonl => out.record(&record)?,
        _ => {
            let verb = match outcome.status {
                InstallStatus::Installed => "Installed",
                InstallStatus::Updated => "Updated",
                InstallStatus::Unchanged => "Already installed:",
            };
            let mut line = format!(
                "{verb} pre-commit hook {} (runs wiki-lint --staged --deny {})",
                outcome.path.display(),
                match install.deny {
                    Deny::Error => "error",
                    Deny::Warning => "warning",
                }
            );
            if let Some(local) = &outcome.chained {
                line.push_str(&format!("; runs {} first", local.display()));
            }
            line.push('.');
            out.line(&line)?;
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
