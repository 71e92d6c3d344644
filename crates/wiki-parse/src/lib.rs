//! # wiki-parse — the vault model
//!
//! The one place in the toolchain that reads vault pages. Everything else (digest, lint, search,
//! apply) consumes [`Page`] / [`PageInfo`] values from here, or the JSON Lines records the
//! `wiki-parse` binary prints (see [`record`]).
//!
//! * [`frontmatter`] — `---` fences (CRLF tolerated) and the body split;
//! * [`yaml`] — YAML parsing with file line numbers, an order-preserving emitter, and why we
//!   chose `yaml_serde`;
//! * [`model`] — the normalised page summary (claims, evidence, person cards, relationships)
//!   with the normalisation rules of reference §2.3;
//! * [`page`] — parsing one file (binary, UTF-8, size and YAML errors reported as
//!   `path:line: message`), title resolution, git blob ids, page rendering;
//! * [`vault`] — page kinds, layout and discovery (symlinks never followed);
//! * [`slug`] — slugs and file names (§2.4);
//! * [`splice`] — minimal edits of frontmatter text (only changed entries written again);
//! * [`markers`] — managed blocks and human blocks (§2.5);
//! * [`links`] — link extraction, resolution and formatting (§2.6);
//! * [`time`] — timestamps and freshness (§4.2);
//! * [`layout`] — what `wiki init` creates (§1.2).

pub mod cmd;
pub mod frontmatter;
pub mod health;
pub mod layout;
pub mod links;
pub mod markdown;
pub mod markers;
pub mod model;
pub mod page;
pub mod pagecache;
pub mod record;
pub mod sealed;
pub mod slug;
pub mod splice;
pub mod time;
pub mod vault;
pub mod yaml;
mod yaml_fast;

pub use links::{Link, LinkKind, LinkTargets};
pub use model::{Claim, Evidence, PageSummary, PersonCard, Relationship};
pub use page::{
    KeyLineMap, Page, PageError, PageFrontmatter, PageInfo, parse_frontmatter, parse_page,
};
pub use vault::{PageKind, VaultError, VaultPages, read_vault};

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![wiki_cli::subcommand!(
        "parse",
        "Parse vault pages into JSON Lines records",
        cmd::Args,
        cmd::run
    )]
}
