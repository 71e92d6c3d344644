//! `wiki memory status`: what the workspace holds and how fresh its index is.

use std::collections::BTreeMap;

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer};
use crate::error::Result;
use crate::workspace::{self, FileKind};
use crate::{config, dreams, shortterm};

/// Show the memory workspace: files by kind, index chunks and freshness, the configured
/// provider, the short-term recall store and the dream diary.
///
/// `--json` prints one `{"type":"status",…}` record. Reading only: nothing is indexed or
/// written (`wiki memory index` refreshes the index).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    workspace: String,
    exists: bool,
    files: BTreeMap<&'static str, usize>,
    total_files: usize,
    index: IndexStatus,
    provider: String,
    search_mode: &'static str,
    short_term: StoreStatus,
    dreams: DreamsStatus,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct IndexStatus {
    path: String,
    built: bool,
    files: usize,
    chunks: u64,
    fresh: bool,
    changed: usize,
    added: usize,
    removed: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StoreStatus {
    path: &'static str,
    exists: bool,
    entries: usize,
    promoted: usize,
    invalid: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DreamsStatus {
    path: &'static str,
    exists: bool,
    entries: usize,
    backfill_entries: usize,
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn index_status(ctx: &Ctx, files: &[String]) -> Result<IndexStatus> {
    let home = ctx.index_home()?;
    let dir = wiki_search::memory_index_dir(&home, &ctx.ws.root);
    let mut st = IndexStatus {
        path: dir.display().to_string(),
        built: dir.join("MANIFEST").is_file(),
        files: 0,
        chunks: 0,
        fresh: false,
        changed: 0,
        added: 0,
        removed: 0,
    };
    if !st.built {
        st.added = files.len();
        return Ok(st);
    }
    let index = crate::search::open(&home, &ctx.ws, false, true)?;
    let m = &index.manifest;
    st.files = m.entries.len();
    st.chunks = m.live_docs;
    for f in files {
        match index.entry(f) {
            None => st.added += 1,
            Some(e) => {
                let same = std::fs::symlink_metadata(ctx.ws.path(f))
                    .is_ok_and(|meta| meta.len() == e.size && mtime_ns(&meta) == e.mtime_ns);
                if !same {
                    st.changed += 1;
                }
            }
        }
    }
    st.removed = m
        .entries
        .iter()
        .filter(|e| !files.iter().any(|f| f == &e.path))
        .count();
    st.fresh = st.changed == 0 && st.added == 0 && st.removed == 0;
    Ok(st)
}

/// Run `wiki memory status`.
pub fn run(ctx: &Ctx, _args: &Args) -> Result<u8> {
    let exists = ctx.ws.exists();
    let files = if exists {
        ctx.ws.memory_files()
    } else {
        Vec::new()
    };
    let mut by_kind: BTreeMap<&'static str, usize> = [
        FileKind::Curated,
        FileKind::Daily,
        FileKind::Import,
        FileKind::DreamReport,
        FileKind::Other,
    ]
    .into_iter()
    .map(|k| (k.label(), 0))
    .collect();
    for f in &files {
        *by_kind.entry(workspace::kind_of(f).label()).or_default() += 1;
    }
    let index = if exists {
        index_status(ctx, &files)?
    } else {
        IndexStatus {
            path: String::new(),
            built: false,
            files: 0,
            chunks: 0,
            fresh: false,
            changed: 0,
            added: 0,
            removed: 0,
        }
    };
    let provider = config::load(ctx.agent.as_deref())?
        .provider
        .unwrap_or_else(|| "none".into());
    let now_iso = wiki_cli::iso_millis(ctx.now);
    let (store_exists, store) = if exists && ctx.ws.path(shortterm::STORE_PATH).exists() {
        (true, shortterm::read_store(&ctx.ws, &now_iso)?)
    } else {
        (false, shortterm::Store::default())
    };
    let dreams_path = ctx.ws.existing_or_first(&workspace::DREAMS_FILES);
    let diary = exists
        .then(|| ctx.ws.read(dreams_path))
        .transpose()?
        .flatten()
        .map(|text| dreams::diary_entries(&text));
    let rec = StatusRecord {
        kind: "status",
        workspace: ctx.ws.root.display().to_string(),
        exists,
        total_files: files.len(),
        files: by_kind,
        index,
        provider,
        search_mode: "lexical",
        short_term: StoreStatus {
            path: shortterm::STORE_PATH,
            exists: store_exists,
            entries: store.entries.len(),
            promoted: store
                .entries
                .iter()
                .filter(|e| e.promoted_at.is_some())
                .count(),
            invalid: store.invalid,
        },
        dreams: DreamsStatus {
            path: dreams_path,
            exists: diary.is_some(),
            entries: diary.as_ref().map_or(0, |d| d.len()),
            backfill_entries: diary.as_ref().map_or(0, |d| {
                d.iter()
                    .filter(|b| b.contains(dreams::BACKFILL_MARKER))
                    .count()
            }),
        },
    };
    let mut p = Printer::new(ctx.json(false)?);
    p.record(&rec)?;
    if !p.json() {
        for line in text(&rec) {
            p.line(&line)?;
        }
    }
    p.flush()?;
    Ok(exit::OK)
}

fn text(r: &StatusRecord) -> Vec<String> {
    let mut out = vec![format!(
        "Workspace: {}{}",
        r.workspace,
        if r.exists { "" } else { " (missing)" }
    )];
    let parts: Vec<String> = ["curated", "daily", "import", "dream-report", "other"]
        .iter()
        .map(|k| format!("{} {k}", r.files.get(k).copied().unwrap_or(0)))
        .collect();
    out.push(format!("Files: {} ({})", r.total_files, parts.join(", ")));
    let i = &r.index;
    let freshness = if !i.built {
        "not built (run `wiki memory index`)".to_string()
    } else if i.fresh {
        "fresh".to_string()
    } else {
        format!(
            "stale ({} changed, {} new, {} removed; searches refresh it)",
            i.changed, i.added, i.removed
        )
    };
    out.push(format!(
        "Index: {} files, {} chunks, {freshness}",
        i.files, i.chunks
    ));
    if !i.path.is_empty() {
        out.push(format!("Index path: {}", i.path));
    }
    out.push(format!(
        "Provider: {} (search: {})",
        r.provider, r.search_mode
    ));
    let s = &r.short_term;
    out.push(if s.exists {
        format!(
            "Short-term store: {} ({} entries, {} promoted{})",
            s.path,
            s.entries,
            s.promoted,
            if s.invalid > 0 {
                format!(", {} invalid", s.invalid)
            } else {
                String::new()
            }
        )
    } else {
        format!("Short-term store: {} (none yet)", s.path)
    });
    let d = &r.dreams;
    out.push(if d.exists {
        format!(
            "Dream diary: {} ({} entries, {} backfilled)",
            d.path, d.entries, d.backfill_entries
        )
    } else {
        format!("Dream diary: {} (none yet)", d.path)
    });
    out
}
