//! `wiki gc`: pack the vault repository's loose objects.

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};
use wiki_store::Store;

use crate::error::Error;

/// Pack the repository's loose objects (and merge its smaller packs) into one pack, successive
/// versions of a file as deltas.
///
/// Every commit stores each changed file whole as a loose object; a large vault's dashboards
/// make that megabytes per operation. Commits already pack by themselves once the loose objects
/// are estimated to exceed 64 MiB, merging packs of at most 32 MiB when there would be more
/// than `gc.autoPackLimit` (50), in a detached background process unless `gc.autoDetach` is
/// false (`gc.auto = 0` or `WIKI_AUTO_PACK=never` turns that off, `WIKI_AUTO_PACK=always` packs
/// after every commit); `wiki gc` does it now: every loose object
/// and every pack except the largest (and packs with a `.keep`, `.promisor` or `.mtimes` file)
/// go into one new pack. Loose objects and merged packs are removed only after the new pack and
/// its index are safely on disk; nothing is pruned (unreachable objects are packed too). Works
/// without the git binary; `git gc` remains the tool to prune.
///
/// It also removes the caches of agents whose branch was deleted (`git branch -D agents/<ID>`):
/// `.openclaw-wiki/cache/agents/<ID>/` (their `agent-digest.json` and `claims.jsonl`) and
/// `.openclaw-wiki/tmp/agents/<ID>/` (their parse cache), git-ignored files that nothing reads
/// once the branch is gone (tens of MB each on a large vault). It takes the vault lock for that.
///
/// Output: one `{"type":"gc","objects","deltas","looseBytes","packBytes","packsMerged","pack",
/// "agentCachesRemoved","agentCacheBytes"}` record (`pack` relative to the repository's git
/// directory, `null` when there was nothing to pack; `agentCachesRemoved`: the agent ids whose
/// caches were removed).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct GcRecord {
    r#type: &'static str,
    objects: usize,
    deltas: usize,
    loose_bytes: u64,
    pack_bytes: u64,
    packs_merged: usize,
    pack: Option<String>,
    agent_caches_removed: Vec<String>,
    agent_cache_bytes: u64,
}

/// Run `wiki gc`.
pub fn run(global: &GlobalArgs, _args: &Args) -> Result<u8, CliError> {
    let format =
        global.format_among(Format::Jsonl, &[Format::Jsonl, Format::Json, Format::Text])?;
    let vault = global.vault_dir()?;
    let store = Store::open(&vault).map_err(|e| CliError::from(Error::from(e)))?;
    let done = store
        .repack_objects()
        .map_err(|e| CliError::from(Error::from(e)))?;
    let pruned = {
        let _lock = store.lock().map_err(|e| CliError::from(Error::from(e)))?;
        crate::agent::prune_caches(&store)?
    };
    let pack = done.pack.as_ref().map(|p| {
        let mut parts: Vec<String> = p
            .iter()
            .rev()
            .take(3)
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        parts.reverse();
        parts.join("/")
    });
    let record = GcRecord {
        r#type: "gc",
        objects: done.objects,
        deltas: done.deltas,
        loose_bytes: done.loose_bytes,
        pack_bytes: done.pack_bytes,
        packs_merged: done.packs_merged,
        pack,
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
