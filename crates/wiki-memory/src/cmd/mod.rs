//! `wiki memory <command>`: one module per subcommand, each an `Args` (its help) and a `run`.
//!
//! Output: text for people by default; `--json` (or `--format jsonl`) prints JSON Lines, one
//! record per line with a `type` field. `wiki memory facts` prints JSON Lines by default (its
//! text form is `--format text`). Exit codes: 0 ok, 1 ran fine but found something to report
//! (no result, malformed Retain bullets, a refused step), 2 usage or runtime error.

use std::path::PathBuf;

use jiff::Timestamp;
use wiki_cli::{CliError, Format, GlobalArgs, Output};

use crate::error::Result;
use crate::workspace::{self, Workspace};

pub mod bootstrap;
pub mod facts;
pub mod get;
pub mod import;
pub mod index;
pub mod promote;
pub mod recall;
pub mod reflect;
pub mod rem_backfill;
pub mod search;
pub mod status;
pub mod triggers;

/// The agent's memory workspace: MEMORY.md, daily notes, DREAMS.md.
///
/// Retain (typed facts in `## Retain` sections), recall (lexical, entity, temporal and opinion),
/// trigger recall, reflection into the vault, dreaming promotion into MEMORY.md with its diary,
/// imports from other assistants and the session-start bootstrap. Every change to the workspace
/// is a git commit that `wiki rollback <commit>` undoes: in the vault's repository when the
/// workspace is a folder of the vault, else in the workspace's own repository (initialized when
/// missing; undo there with `wiki --vault <workspace> rollback --no-compile <commit>`).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Agent workspace. Default: $WIKI_MEMORY_DIR, else the agent's `workspace` in the OpenClaw
    /// config (agents.list[<agent>], then agents.defaults), else
    /// $OPENCLAW_STATE_DIR/workspace (~/.openclaw/workspace).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    /// The memory command.
    #[command(subcommand)]
    pub command: Command,
}

/// The memory commands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    Status(status::Args),
    Index(index::Args),
    Search(search::Args),
    Get(get::Args),
    Triggers(triggers::Args),
    Facts(facts::Args),
    Recall(recall::Args),
    Reflect(reflect::Args),
    Promote(promote::Args),
    RemBackfill(rem_backfill::Args),
    Bootstrap(bootstrap::Args),
    Import(import::Args),
}

/// Run `wiki memory <command>`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let ctx = Ctx::new(global, args)?;
    let code = match &args.command {
        Command::Status(a) => status::run(&ctx, a),
        Command::Index(a) => index::run(&ctx, a),
        Command::Search(a) => search::run(&ctx, a),
        Command::Get(a) => get::run(&ctx, a),
        Command::Triggers(a) => triggers::run(&ctx, a),
        Command::Facts(a) => facts::run(&ctx, a),
        Command::Recall(a) => recall::run(&ctx, a),
        Command::Reflect(a) => reflect::run(&ctx, a),
        Command::Promote(a) => promote::run(&ctx, a),
        Command::RemBackfill(a) => rem_backfill::run(&ctx, a),
        Command::Bootstrap(a) => bootstrap::run(&ctx, a),
        Command::Import(a) => import::run(&ctx, a),
    }?;
    Ok(code)
}

/// What every memory command needs.
pub struct Ctx {
    /// The global flags.
    pub global: GlobalArgs,
    /// The workspace.
    pub ws: Workspace,
    /// The clock (`--now`, `$WIKI_NOW`).
    pub now: Timestamp,
    /// The agent (`--agent`, `$WIKI_AGENT`, config scope).
    pub agent: Option<String>,
}

impl Ctx {
    fn new(global: &GlobalArgs, args: &Args) -> Result<Ctx, CliError> {
        Ctx::for_workspace(global, args.workspace.as_deref())
    }

    /// The context of a memory operation outside the command line (the MCP server's tools):
    /// `workspace` is `--workspace`, located like the commands locate it.
    pub fn for_workspace(
        global: &GlobalArgs,
        workspace: Option<&std::path::Path>,
    ) -> Result<Ctx, CliError> {
        let agent = global.agent_id()?;
        let ws = workspace::locate(workspace, agent.as_deref())?;
        Ok(Ctx {
            global: global.clone(),
            ws,
            now: global.now()?,
            agent,
        })
    }

    /// The vault directory (where the memory index lives when it exists).
    pub fn vault(&self) -> Result<PathBuf> {
        Ok(self.global.vault_dir()?)
    }

    /// Whether output is JSON Lines (`--json`, `--format json|jsonl`), else text; `records`:
    /// the command's default is JSON Lines.
    pub fn json(&self, records_by_default: bool) -> Result<bool> {
        let default = if records_by_default {
            Format::Jsonl
        } else {
            Format::Text
        };
        let f = self
            .global
            .format_among(default, &[Format::Text, Format::Json, Format::Jsonl])?;
        Ok(f != Format::Text)
    }

    /// The memory index's home ([`crate::search::index_home`]).
    pub fn index_home(&self) -> Result<PathBuf> {
        Ok(crate::search::index_home(&self.vault()?, &self.ws))
    }

    /// Fail clearly when the workspace directory does not exist.
    pub fn require_workspace(&self) -> Result<()> {
        if self.ws.exists() {
            Ok(())
        } else {
            Err(crate::error::Error::Usage(format!(
                "{}: no memory workspace here (pass --workspace DIR or set the agent's workspace in the OpenClaw config)",
                self.ws.root.display()
            )))
        }
    }
}

/// Print `message` on stderr as `wiki: <message>`.
pub fn say(message: &str) {
    wiki_cli::warn(&wiki_cli::program_name(), message);
}

/// Write JSON Lines records or text lines to stdout.
pub struct Printer {
    out: Output,
    json: bool,
}

impl Printer {
    /// A printer in JSON Lines (`json`) or text mode.
    pub fn new(json: bool) -> Printer {
        Printer {
            out: Output::new(),
            json,
        }
    }

    /// Whether records are printed.
    pub fn json(&self) -> bool {
        self.json
    }

    /// Print a record (JSON mode only).
    pub fn record<T: serde::Serialize>(&mut self, r: &T) -> Result<()> {
        if self.json {
            self.out.record(r)?;
        }
        Ok(())
    }

    /// Print a text line (text mode only).
    pub fn line(&mut self, s: &str) -> Result<()> {
        if !self.json {
            self.out.line(s)?;
        }
        Ok(())
    }

    /// Flush stdout.
    pub fn flush(&mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// The `Wiki-Agent` trailer value.
pub fn agent_trailer(ctx: &Ctx) -> (String, String) {
    (
        "Wiki-Agent".to_string(),
        ctx.agent.clone().unwrap_or_else(|| "main".to_string()),
    )
}

/// Commit `writes` to the workspace's repository with `subject` and a `Wiki-Op: <op>` trailer
/// (`None`: a dry run, nothing to write, or nothing changed).
pub fn commit_workspace(
    ctx: &Ctx,
    writes: &[workspace::FileWrite],
    subject: &str,
    op: &str,
    dry_run: bool,
) -> Result<Option<wiki_store::ObjectId>> {
    if dry_run || writes.is_empty() {
        return Ok(None);
    }
    let repo = ctx.ws.repo(ctx.vault().ok().as_deref())?;
    repo.commit(
        writes,
        subject,
        &[("Wiki-Op".into(), op.to_string()), agent_trailer(ctx)],
    )
}
