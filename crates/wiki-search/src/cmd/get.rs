//! `wiki get`: read a page (or memory file) as a window of lines.

use std::path::PathBuf;

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::cmd::{Backend, cli_error, corpora, memory_dir, vault_view};
use crate::get;
use crate::resident::Found;
use crate::store::Options;
use crate::{Corpus, Index, View};

fn parse_backend(s: &str) -> Result<Backend, String> {
    <Backend as clap::ValueEnum>::from_str(s, false)
        .map_err(|_| format!("Invalid backend: {s}. Expected one of: shared, local"))
}

fn at_least_one(s: &str) -> Result<usize, String> {
    let n: i64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    Ok(n.max(1) as usize)
}

/// Read a wiki page by claim id (`claim.alpha.db` or `claim:claim.alpha.db`, after a compile),
/// path (`sources/alpha.md`, `sources/alpha`), base name (`alpha`) or page id, as a window of
/// its body lines (the blank line after the frontmatter is line 1).
///
/// Text output prints the content; `--json` prints `{corpus, path, title, kind, content,
/// fromLine, lineCount, totalLines, truncated, …provenance}` or `null`. A lookup that matches
/// nothing prints `Wiki page not found: <lookup>` and exits 1; one that names a page that does
/// not parse prints `path:line: message` on stderr (with `--json`, `wiki-parse`'s error record
/// on stdout) and exits 1.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Claim id, path, base name or page id.
    #[arg(value_name = "LOOKUP")]
    pub lookup: String,

    /// First line to return (1-based).
    #[arg(long, value_name = "N", default_value = "1", value_parser = at_least_one)]
    pub from: usize,

    /// Number of lines to return.
    #[arg(long, value_name = "N", default_value = "200", value_parser = at_least_one)]
    pub lines: usize,

    /// Corpus: the wiki, the memory workspace, or the wiki with a memory fallback.
    #[arg(long, value_enum, default_value = "wiki")]
    pub corpus: Corpus,

    /// Backend: `local` never reads the memory corpus.
    #[arg(long, default_value = "shared", value_parser = parse_backend)]
    pub backend: Backend,

    /// Memory workspace (default: $WIKI_MEMORY_DIR, else $OPENCLAW_STATE_DIR/workspace, else
    /// ~/.openclaw/workspace).
    #[arg(long, value_name = "DIR", env = "WIKI_MEMORY_DIR")]
    pub memory: Option<PathBuf>,
}

fn read_file(
    vault: &std::path::Path,
    view: &View,
    path: &str,
) -> Result<Option<Vec<u8>>, CliError> {
    // Bounded by what the file can be: a page, or a compiled cache.
    let limit = if path.starts_with(wiki_parse::layout::CACHE_DIR) {
        wiki_vault::DERIVED_LIMIT
    } else {
        wiki_vault::PAGE_LIMIT
    };
    match view {
        View::WorkTree => Ok(wiki_cli::read::read_bounded(&vault.join(path), limit).ok()),
        View::Agent { rev, .. } => {
            let store = wiki_store::Store::open(vault).map_err(CliError::runtime)?;
            store.read_file(rev, path).map_err(CliError::runtime)
        }
    }
}

fn read_page(
    vault: &std::path::Path,
    view: &View,
    path: &str,
    from: usize,
    lines: usize,
) -> Result<Found, CliError> {
    let Some(bytes) = read_file(vault, view, path)? else {
        return Ok(Found::Nothing);
    };
    Ok(match wiki_parse::parse_page(path, &bytes) {
        Ok(page) => Found::Page(Box::new(get::page_result(&page, from, lines))),
        Err(e) => Found::Broken(e),
    })
}

/// Every listed page's path, and `(path, page id)` pairs: what a lookup resolves against.
pub(crate) type Listing = (Vec<String>, Vec<(String, String)>);

/// The paths of every listed page (those that fail to parse, which have no documents, included:
/// looking one up by path reports its parse error rather than "not found") and the page ids of
/// an index.
pub(crate) fn listed(index: &Index) -> Result<Listing, CliError> {
    let paths: Vec<String> = index
        .manifest
        .entries
        .iter()
        .map(|e| e.path.clone())
        .collect();
    Ok((paths, index.ids().map_err(cli_error)?))
}

/// Resolve `lookup` in the wiki of `view` (claim id first, then path, base name and page id
/// among the pages `listing` returns: see [`listed`]) and read lines `from..from + lines`.
pub(crate) fn find_wiki(
    vault: &std::path::Path,
    view: &View,
    lookup: &str,
    from: usize,
    lines: usize,
    listing: impl FnOnce(&std::path::Path, &View) -> Result<Listing, CliError>,
) -> Result<Found, CliError> {
    let key = get::lookup_key(lookup);
    // 1. Claim id (after a compile), from the claims cache of the same view.
    // The claims cache is a derived file: in the work tree for the checked-out branch, under
    // `.openclaw-wiki/cache/agents/<ID>/` for an agent branch (older vaults committed it).
    let derived = match view {
        View::WorkTree => None,
        View::Agent { id, .. } => wiki_cli::read::read_bounded(
            &vault.join(wiki_parse::layout::cache_location(
                wiki_parse::layout::CLAIMS_PATH,
                Some(id),
            )),
            wiki_vault::DERIVED_LIMIT,
        )
        .ok(),
    };
    let claims = match derived {
        Some(b) => Some(b),
        None => read_file(vault, view, get::CLAIMS_CACHE)?,
    }
    .and_then(|b| String::from_utf8(b).ok())
    .unwrap_or_default();
    // The cache is derived (damaged, stale or missing without anyone noticing): its answer is
    // believed only once the page it names is seen to hold the claim.
    let claim = get::claim_id(lookup);
    let mut target = get::claim_page(&claims, lookup)
        .filter(|path| claim.is_some_and(|id| page_has_claim(vault, view, path, id)));
    if target.is_none() {
        let (paths, ids) = listing(vault, view)?;
        target = get::resolve_path(&key, &paths, &ids);
        // Not a page: the claim id from the pages themselves (the cache did not answer).
        if target.is_none()
            && let Some(id) = claim
        {
            target = paths
                .iter()
                .find(|p| page_has_claim(vault, view, p, id))
                .cloned();
        }
    }
    let Some(path) = target else {
        return Ok(Found::Nothing);
    };
    read_page(vault, view, &path, from, lines)
}

fn find_in_process(global: &GlobalArgs, args: &Args) -> Result<Found, CliError> {
    let (vault, view) = vault_view(global)?;
    find_wiki(
        &vault,
        &view,
        &args.lookup,
        args.from,
        args.lines,
        |vault, view| {
            let opts = Options {
                rebuild: false,
                program: "wiki".into(),
                no_refresh: false,
            };
            listed(&crate::open_wiki(vault, view, &opts).map_err(cli_error)?)
        },
    )
}

/// Whether the page at `path` declares claim `id` (a page without it in its frontmatter is not
/// parsed).
fn page_has_claim(vault: &std::path::Path, view: &View, path: &str, id: &str) -> bool {
    let Ok(Some(bytes)) = read_file(vault, view, path) else {
        return false;
    };
    if memchr::memmem::find(&bytes, id.as_bytes()).is_none() {
        return false;
    }
    wiki_parse::parse_page(path, &bytes).is_ok_and(|page| {
        page.summary
            .claims
            .iter()
            .any(|c| c.id.as_deref() == Some(id))
    })
}

/// Run `wiki get`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let (wiki, memory) = corpora(args.corpus, args.backend);
    let mut found = None;
    if wiki {
        match find_in_process(global, args)? {
            Found::Page(result) => found = Some(*result),
            Found::Broken(error) => return report_broken(&error, format),
            Found::Nothing => {}
        }
    }
    if found.is_none() && memory {
        let dir = memory_dir(args.memory.as_deref())?;
        found = get::memory_result(&dir, &get::lookup_key(&args.lookup), args.from, args.lines);
    }
    let mut out = Output::new();
    match (&found, format) {
        (Some(r), Format::Json) => out.json(r)?,
        (None, Format::Json) => out.line("null")?,
        (Some(r), _) => {
            out.text(&r.content)?;
            if !r.content.ends_with('\n') {
                out.text("\n")?;
            }
        }
        (None, _) => out.line(&format!("Wiki page not found: {}", args.lookup))?,
    }
    out.flush()?;
    Ok(if found.is_some() {
        exit::OK
    } else {
        exit::FOUND
    })
}

/// The page the lookup names does not parse: `path:line: message` on stderr, exit 1 (like
/// `wiki-parse` for such a page), and with `--json` the error record of `wiki-parse`.
fn report_broken(error: &wiki_parse::PageError, format: Format) -> Result<u8, CliError> {
    wiki_cli::notice(Some(error.to_string()));
    if format == Format::Json {
        let mut out = Output::new();
        out.json(&serde_json::json!({
            "type": "error",
            "path": error.path,
            "line": error.line,
            "message": error.message,
        }))?;
        out.flush()?;
    }
    Ok(exit::FOUND)
}
