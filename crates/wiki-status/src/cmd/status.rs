//! `wiki status` and `wiki doctor`.

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::findings;
use crate::text::{self, Fix};

/// The vault's state: the original's status (mode, scope, vault, render mode, Obsidian CLI,
/// bridge, unsafe-local, pages, source provenance, warnings) plus what a git-native vault needs:
/// the branch and agent, uncommitted changes, whether the compiled files and the digest are
/// current (a compile check that writes nothing), the search index and server, the repository's
/// size. Writes nothing. Always exits 0 (see `wiki doctor`); `--json` prints one document.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {}

/// Run `wiki status`.
pub fn run(global: &GlobalArgs, _args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let status = crate::status::collect(global)?;
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&status)?,
        _ => out.text(&text::status_text(&status))?,
    }
    out.flush()?;
    Ok(exit::OK)
}

/// The status with a verdict and one fix per warning: the command to run where there is one.
/// Exits 1 when any warning is found (unhealthy), 0 when healthy. An invalid OpenClaw config is
/// reported as the finding `config-invalid`.
#[derive(Debug, Clone, clap::Args)]
pub struct DoctorArgs {}

/// Run `wiki doctor`.
pub fn run_doctor(global: &GlobalArgs, _args: &DoctorArgs) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let mut out = Output::new();
    if let Err(CliError::Usage(message)) = wiki_cli::config::load() {
        let finding = findings::config_invalid(&message);
        match format {
            Format::Json => out.json(&serde_json::json!({
                "healthy": false,
                "warningCount": 1,
                "status": null,
                "warnings": [finding],
                "fixes": [Fix { code: finding.code.clone(), message: finding.fix.clone() }],
            }))?,
            _ => out.text(&text::doctor_text(
                &format!("{}\n", finding.message),
                std::slice::from_ref(&finding),
            ))?,
        }
        out.flush()?;
        return Ok(exit::FOUND);
    }
    let status = crate::status::collect(global)?;
    match format {
        Format::Json => out.json(&text::doctor(&status))?,
        _ => out.text(&text::doctor_text(
            &text::status_text(&status),
            &status.warnings,
        ))?,
    }
    out.flush()?;
    Ok(if status.warnings.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}
