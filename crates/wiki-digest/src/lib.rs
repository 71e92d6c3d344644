//! # wiki-digest — compile a vault
//!
//! The compiled layer is what agents read instead of Markdown: Related blocks on pages, the
//! root and directory indexes, nine dashboards under `reports/`, and the machine cache
//! `.openclaw-wiki/cache/agent-digest.json` + `claims.jsonl`, byte-compatible with what the
//! original OpenClaw `memory-wiki` plugin writes (reference §2.7, §4, §5).
//!
//! Layers (library first, thin binaries):
//!
//! * [`wiki_vault::Snapshot`] — the vault files compile reads and writes, in memory, from the work
//!   tree or from any git revision (agent branches without checkout), with
//!   [`Snapshot::overlay`](wiki_vault::Snapshot::overlay) for callers' own edits;
//! * [`compile::compile`] — **pure**: `(&Snapshot, &CompileOptions) -> CompileResult`, no I/O,
//!   no clock; returns the files whose bytes change as [`wiki_store::Change`]s, the parsed pages
//!   after compile, page errors and counts;
//! * the renderers it uses, usable on their own (e.g. from `wiki-parse` records):
//!   [`related`], [`reports`], [`index`], [`digest`]; [`json`] writes JSON exactly like
//!   JavaScript's `JSON.stringify`;
//! * [`context::VaultContext`] — porcelain helper shared with lint and apply: resolve and check
//!   the vault, pick the target (checked-out branch or `agents/<id>`), lock, snapshot, commit one
//!   change set with trailers, append to the local log;
//! * [`cache`] — the compile cache that answers a no-op compile without parsing (content key of
//!   the compiled files plus the clock window in which no freshness level changes);
//! * [`cmd::compile`] — `wiki compile [--check] [--render-mode native|obsidian]`;
//! * [`cmd::digest`] — the `wiki-digest` plumbing binary (`--claims`, `--digest`,
//!   `--report NAME`) reading `wiki-parse` records on stdin or the vault; it writes no files.
//!
//! ## Compatibility notes
//!
//! Outputs follow the original plugin's release that still wrote the file caches (2026.6.11),
//! which already writes native links relative to the containing page (newest behaviour):
//! `[Alpha](../sources/alpha.md)` inside `entities/beta.md`. Known, deliberate differences:
//!
//! * pages that fail to parse are skipped and listed in `frontmatterErrors` of the digest
//!   (key omitted when there are none, so clean vaults match byte for byte); the original
//!   release aborts the whole compile;
//! * pages in sub-directories of the kind directories are pages (the original scans one level);
//! * links inside code spans and fenced code do not count as backlinks, and a Markdown link whose
//!   page-relative target names no page is also tried as an older vault-root-relative target;
//! * a claim whose own `updatedAt` is present but unparseable has unknown freshness (wiki-parse,
//!   newest upstream behaviour);
//! * `localeCompare` is approximated by [`wiki_parse::health::locale_cmp`] (exact for ASCII;
//!   accented Latin letters sort after `z`).

pub mod cache;
pub mod cmd;
pub mod compile;
pub mod context;
pub mod derived;
pub mod digest;
pub mod index;
pub mod json;
pub mod pages;
pub mod related;
pub mod reports;
pub mod reuse;
pub mod shards;

pub use compile::{CompileOptions, CompileResult, ParseCacheUse, RenderConfig, compile};
pub use context::VaultContext;
pub use pages::PageCounts;

/// Built-in `wiki` subcommands contributed by this crate: `compile` and `digest`.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "compile",
            "Compile Related blocks, indexes, dashboards and the agent digest; commit the result",
            cmd::compile::Args,
            cmd::compile::run
        ),
        wiki_cli::subcommand!(
            "digest",
            "Print claims.jsonl lines, the agent digest or a dashboard body (writes nothing)",
            cmd::digest::Args,
            cmd::digest::run
        ),
    ]
}

/// A small deterministic random source for the randomized unit tests (xorshift64): each call
/// gives a number in `0..m`.
#[cfg(test)]
pub(crate) fn test_rng(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m as u64) as usize
    }
}
