//! # wiki-vault — what is in the vault now
//!
//! The one door through which commands read a vault. [`wiki_parse`] is the pure model (bytes
//! in, page out); this crate finds the bytes and remembers what it already parsed:
//!
//! * what counts as a page — the rules of [`wiki_parse::vault`], re-exported here
//!   ([`is_page_path`], [`PageKind`], [`scan_order`]), the only ones any listing applies;
//! * [`list`] — listing the pages of a work tree ([`scan`], [`scan_stat`]) or of a git tree
//!   ([`pages_at`], read through `wiki-store`), with the problems a scan reports (symbolic
//!   links, names that are not UTF-8);
//! * [`pagecache`] — the parse cache and its change detection: a page whose stat data matches
//!   what was recorded is not read again (the rule git's index uses);
//! * [`sealed`] — the envelope of every derived binary file (magic, format number, checksum,
//!   MessagePack body);
//! * [`snapshot`] — the [`Snapshot`] compile, lint, status and apply read: the pages and the
//!   other vault files compile reads and writes, from the work tree or a git revision;
//! * [`index_dir`] — where the search indexes live (so removing an agent removes its index);
//! * [`staged_index`] — the git index as `wiki-lint --staged` reads it (through `wiki-store`);
//! * [`cmd`] — `wiki parse` / `wiki-parse`: the vault's pages as JSON Lines records.

pub mod checksum;
pub mod cmd;
pub mod index_dir;
pub mod list;
pub mod pagecache;
pub mod sealed;
pub mod snapshot;

pub use list::{
    PageFile, PageStatter, StatedFile, TreePages, VaultError, pages_at, read_files, read_page,
    read_vault, read_vault_at, read_vault_infos, scan, scan_stat, tree_problems,
};
pub use wiki_parse::vault::{
    MAX_DEPTH, PageKind, VaultPages, is_page_path, is_scanned_page_path, parse_blobs, scan_order,
    tree_link_problem,
};

pub use snapshot::Snapshot;

/// [`wiki_parse::page::MAX_PAGE_BYTES`] as the limit of [`wiki_cli::read::read_bounded`]: every
/// read of a page file.
pub const PAGE_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("pages", wiki_parse::page::MAX_PAGE_BYTES as u64);
/// [`wiki_parse::layout::MAX_DERIVED_BYTES`] as the limit of [`wiki_cli::read::read_bounded`]:
/// every read of a compiled cache file.
pub const DERIVED_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("compiled caches", wiki_parse::layout::MAX_DERIVED_BYTES);
// The store reads back any file a tool commits: its limit is the largest of them.
const _: () = assert!(wiki_store::WORKTREE_LIMIT.bytes == wiki_parse::layout::MAX_DERIVED_BYTES);

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![wiki_cli::subcommand!(
        "parse",
        "Parse vault pages into JSON Lines records",
        cmd::Args,
        cmd::run
    )]
}

/// The git index of the repository holding `vault`, read-only, with this layer's page rules:
/// the staged pages (changed or not against `HEAD`) and `HEAD`'s pages (`wiki-lint --staged`).
pub fn staged_index(
    vault: &std::path::Path,
) -> Result<wiki_store::staged::StagedIndex, wiki_store::staged::StagedError> {
    let dirs = PageKind::ALL.map(PageKind::dir);
    wiki_store::staged::StagedIndex::load(vault, &dirs, is_page_path)
}
