//! # wiki-parse — the vault model
//!
//! The pure model of a vault page: bytes in, [`Page`] out. No git, no file-system walk, no
//! command line; listing a vault, change detection and the parse cache are `wiki-vault`'s, which
//! feeds every command. The JSON Lines records of `wiki-parse` are [`record`].
//!
//! * [`frontmatter`] — `---` fences (CRLF tolerated) and the body split;
//! * [`yaml`] — YAML parsing with file line numbers, an order-preserving emitter, and why we
//!   chose `yaml_serde`;
//! * [`model`] — the normalised page summary (claims, evidence, person cards, relationships)
//!   with the normalisation rules of reference §2.3;
//! * [`page`] — parsing one file (binary, UTF-8, size and YAML errors reported as
//!   `path:line: message`), title resolution, git blob ids, page rendering;
//! * [`vault`] — page kinds and what counts as a page (symlinks never followed);
//! * [`slug`] — slugs and file names (§2.4);
//! * [`splice`] — minimal edits of frontmatter text (only changed entries written again);
//! * [`markers`] — managed blocks and human blocks (§2.5);
//! * [`links`] — link extraction, resolution and formatting (§2.6);
//! * [`time`] — timestamps and freshness (§4.2);
//! * [`layout`] — what `wiki init` creates (§1.2).

pub mod frontmatter;
pub mod health;
pub mod kind;
pub mod layout;
pub mod links;
pub mod markdown;
pub mod markers;
pub mod model;
pub mod page;
pub mod record;
pub mod slug;
pub mod splice;
pub mod time;
pub mod vault;
pub mod yaml;

pub use kind::PageKind;
pub use links::{Link, LinkKind, LinkTargets};
pub use model::{Claim, Evidence, PageSummary, PersonCard, Relationship};
pub use page::{
    KeyLineMap, Page, PageError, PageFrontmatter, PageInfo, parse_frontmatter, parse_page,
};
pub use vault::VaultPages;
