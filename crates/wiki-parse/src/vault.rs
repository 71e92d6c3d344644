//! What counts as a page (reference §1.2, §2.1): the rules, as pure functions of paths.
//!
//! Pages live under five directories; the kind of a page is given by the first path segment
//! only. A page is a regular file ending in `.md` below a page directory (at most [`MAX_DEPTH`]
//! directories deep), not a directory index (`index.md`), with no hidden path segment; symbolic
//! links are never followed (a symlinked page is reported as an error). Scan order is
//! `sources`, `entities`, `concepts`, `syntheses`, `reports`, each sorted by path
//! ([`scan_order`]). Listing a work tree or a git tree by these rules is `wiki-vault`'s job.

use rayon::prelude::*;

pub use crate::kind::PageKind;
use crate::page::{self, Page, PageError};

/// Maximum directory depth below a kind directory.
pub const MAX_DEPTH: usize = 16;

/// Whether a vault-relative path names a page (page directory, `.md`, not an `index.md`).
pub fn is_page_path(path: &str) -> bool {
    named_like_page(path) && path.rsplit('/').next() != Some("index.md")
}

/// A `.md` file below a page directory with no hidden or empty path segment: a page, or an
/// `index.md` (which a scan also reports when it is a symbolic link).
pub fn named_like_page(path: &str) -> bool {
    PageKind::from_path(path).is_some()
        && path.ends_with(".md")
        && path.contains('/')
        && visible(path)
}

/// No hidden (`.`-prefixed) or empty segment: a path a scan can reach.
pub fn visible(path: &str) -> bool {
    !path.split('/').any(|s| s.starts_with('.') || s.is_empty())
}

/// The problem of a page that is a symbolic link.
pub const SYMLINKED_PAGE: &str =
    "symlink not followed: pages must be regular files inside the vault";
/// The problem of a page directory that is a symbolic link.
pub const SYMLINKED_DIRECTORY: &str = "symlinked page directory not followed";
/// The problem of an entry whose name is not UTF-8.
pub const NOT_UTF8: &str = "file name is not valid UTF-8";

/// The result of reading a whole vault: parsed pages (scan order) and pages that failed.
#[derive(Debug, Default)]
pub struct VaultPages {
    /// Parsed pages in scan order.
    pub pages: Vec<Page>,
    /// Pages that could not be parsed, in scan order.
    pub errors: Vec<PageError>,
}

/// Parse pages from in-memory `(path, bytes)` pairs (e.g. read from a git tree), in parallel.
pub fn parse_blobs(blobs: &[(String, Vec<u8>)]) -> VaultPages {
    split_results(
        blobs
            .par_iter()
            .map(|(path, bytes)| page::parse_page(path, bytes))
            .collect(),
    )
}

/// Whether a scan would list a file at vault path `path` in a checkout: a page path
/// ([`is_page_path`]) at most [`MAX_DEPTH`] directories below its page directory.
pub fn is_scanned_page_path(path: &str) -> bool {
    is_page_path(path) && within_scan_depth(path)
}

/// At most [`MAX_DEPTH`] directories below the page directory.
pub fn within_scan_depth(path: &str) -> bool {
    path.bytes().filter(|&b| b == b'/').count() <= MAX_DEPTH + 1
}

/// The problem a scan would report for a symbolic link at vault path `path` in a checkout
/// (one in place of a page directory, or named like a page, `index.md` included); `None` for
/// a link it would pass over.
pub fn tree_link_problem(path: String) -> Option<PageError> {
    let message = if PageKind::ALL.iter().any(|k| k.dir() == path) {
        SYMLINKED_DIRECTORY
    } else if named_like_page(&path) && within_scan_depth(&path) {
        // As in a checkout, where a link named like a page (`index.md` included) is
        // reported rather than followed.
        SYMLINKED_PAGE
    } else {
        return None;
    };
    Some(PageError {
        path,
        line: 1,
        message: message.into(),
    })
}

/// A scan's order of two vault paths: page directories in [`PageKind::ALL`] order, then the
/// paths compared name by name (a directory's entries sorted by name, each sub-directory's
/// pages where its name sorts).
pub fn scan_order(a: &str, b: &str) -> std::cmp::Ordering {
    let rank = |p: &str| {
        PageKind::from_path(p)
            .and_then(|k| PageKind::ALL.iter().position(|x| *x == k))
            .unwrap_or(usize::MAX)
    };
    rank(a)
        .cmp(&rank(b))
        .then_with(|| a.split('/').cmp(b.split('/')))
}

/// Sort parse results into pages and errors, keeping their order.
pub fn split_results(results: Vec<Result<Page, PageError>>) -> VaultPages {
    let mut out = VaultPages::default();
    for r in results {
        match r {
            Ok(p) => out.pages.push(p),
            Err(e) => out.errors.push(e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_paths() {
        assert_eq!(PageKind::from_path("entities/a.md"), Some(PageKind::Entity));
        assert_eq!(
            PageKind::from_path("syntheses/x/y.md"),
            Some(PageKind::Synthesis)
        );
        assert_eq!(PageKind::from_path("notes/a.md"), None);
        assert_eq!(PageKind::from_path("entitiesx/a.md"), None);
        assert!(is_page_path("sources/a.md"));
        assert!(!is_page_path("sources/index.md"));
        assert!(!is_page_path("index.md"));
        assert!(!is_page_path("sources/.hidden.md"));
        assert!(!is_page_path("sources/a.txt"));
    }
}
