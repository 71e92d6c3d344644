//! `wiki gc`: pack the vault repository's loose objects.

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};
use wiki_store::Store;

use crate::error::Error;

/// Pack the repository with git's own maintenance (`git gc`), holding the vault lock.
///
/// Every commit stores each changed file whole as a loose object. After a commit, when git's own
/// `gc --auto` rule asks for it (more loose objects than `gc.auto`, more packs than
/// `gc.autoPackLimit`), `git gc --auto` already runs by itself, in a detached background process
/// unless `gc.autoDetach` is false (`gc.auto = 0` or `WIKI_AUTO_PACK=never` turns that off,
/// `WIKI_AUTO_PACK=always` runs `git repack -d` after every commit); `wiki gc` runs `git gc` now.
/// Needs `git` on PATH.
///
/// It also removes the caches of agents whose branch was deleted (`git branch -D agents/<ID>`):
/// `.openclaw-wiki/cache/agents/<ID>/` (their `agent-digest.json` and `claims.jsonl`) and
/// `.openclaw-wiki/tmp/agents/<ID>/` (their parse cache), git-ignored files that nothing reads
/// once the branch is gone (tens of MB each on a large vault).
///
/// Output: a sentence under `wiki`; `--format jsonl` (the default of `wiki-apply gc`): one
/// `{"type":"gc","looseObjects","looseBytes","packs","packBytes",
/// "agentCachesRemoved","agentCacheBytes"}` record: the loose objects before, the packs after
/// (`agentCachesRemoved`: the agent ids whose caches were removed).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct GcRecord {
    r#type: &'static str,
    loose_objects: u64,
    loose_bytes: u64,
    packs: u64,
    pack_bytes: u64,
    agent_caches_removed: Vec<String>,
    agent_cache_bytes: u64,
}

/// Run `wiki gc`.
pub fn run(global: &GlobalArgs, _args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        wiki_cli::output::default_format(Format::Jsonl),
        &[Format::Jsonl, Format::Json, Format::Text],
    )?;
    let vault = global.vault_dir()?;
    let store = Store::open(&vault).map_err(|e| CliError::from(Error::from(e)))?;
    let (done, pruned) = {
        let lock = store.lock().map_err(|e| CliError::from(Error::from(e)))?;
        let done = store
            .gc_locked(&lock)
            .map_err(|e| CliError::from(Error::from(e)))?;
        (done, crate::agent::prune_caches(&store)?)
    };
    let record = GcRecord {
        r#type: "gc",
        loose_objects: done.before.loose,
        loose_bytes: done.before.loose_bytes,
        packs: done.after.packs,
        pack_bytes: done.after.pack_bytes,
        agent_caches_removed: pruned.agents,
        agent_cache_bytes: pruned.bytes,
    };
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&record)?,
        Format::Text => {
            out.line(&done.summary())?;
            let n = record.agent_caches_removed.len();
            if n > 0 {
                out.line(&format!(
                    "removed the caches of {n} deleted agent branch{} ({}; {:.1} MB)",
                    if n == 1 { "" } else { "es" },
                    record.agent_caches_removed.join(", "),
                    record.agent_cache_bytes as f64 / 1e6
                ))?;
            }
        }
        _ => out.record(&record)?,
    }
    out.flush()?;
    Ok(exit::OK)
}
