//! `wiki ingest`: local files, directories and URLs as source pages (reference §3).
//!
//! Reading the inputs ([`collect`]) happens before the vault is locked; deciding each input's
//! page and rendering it ([`IngestBatch`]) happens under the lock, on the branch as it is.
//!
//! Identity (§3.1 "newest"): a page whose frontmatter says it was ingested from the same file
//! (`sourceType: local-file`, same canonical `sourcePath`) or URL (`sourceType: url`, same
//! `sourceUrl`) is updated in place. Otherwise the page is `sources/<slug>.md`, id
//! `source.<slug>` (`slug` from the title), unless that path is taken by any other page (another
//! source, a hand-written page): then `<slug>-<sha1(source)[..12]>`. A title that slugifies to
//! `index` never becomes `sources/index.md`.
//!
//! Re-ingesting keeps the page's human notes block, its Related block, `ingestedAt` and any
//! frontmatter key the importer does not own; when the content is the same, the page is left
//! as it is (same `updatedAt`: nothing to commit).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use yaml_serde::{Mapping, Value};

use wiki_apply::edit::FileChange;
use wiki_apply::error::Result;
use wiki_apply::files::VaultFiles;
use wiki_apply::session::Batch;
use wiki_parse::model::opt_string;
use wiki_parse::slug;

use crate::fetch::{self, Limits};
use crate::problem::{self, Problem};
use crate::progress::Progress;
use crate::render;
use crate::walk;

/// Where an input came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A local file (`sourceType: local-file`).
    File,
    /// A fetched URL (`sourceType: url`).
    Url {
        /// The URL the content came from, when redirects led elsewhere.
        final_url: Option<String>,
        /// The response's `Content-Type`.
        content_type: String,
    },
}

/// One text to ingest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The canonical absolute path, or the URL as given.
    pub source: String,
    /// File or URL.
    pub origin: Origin,
    /// The page title.
    pub title: String,
    /// The content.
    pub text: String,
}

/// An entry of a directory that was left out on purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Absolute path.
    pub path: String,
    /// Why (`binary file`, `symbolic link (not followed)`, …).
    pub reason: String,
}

/// What [`collect`] read.
#[derive(Debug, Default)]
pub struct Collected {
    /// Inputs to ingest, in argument order (a directory's files sorted by path).
    pub inputs: Vec<Input>,
    /// Directory entries left out on purpose.
    pub skipped: Vec<Skipped>,
    /// Inputs that could not be read.
    pub problems: Vec<Problem>,
    /// Whether a problem concerns an input named on the command line (not found in a directory).
    pub named_input_failed: bool,
    /// Whether any argument was a directory.
    pub had_directory: bool,
}

/// How to read the inputs.
#[derive(Debug, Clone)]
pub struct CollectOptions<'a> {
    /// `--title` (only with a single file or URL).
    pub title: Option<&'a str>,
    /// `ingest.allowUrlIngest`.
    pub allow_url: bool,
    /// The config file, named when URL ingest is refused.
    pub config_file: Option<&'a Path>,
    /// Fetch timeout and size cap (the cap applies to files too).
    pub limits: Limits,
    /// The vault (its page folders are never read as inputs).
    pub vault: &'a Path,
    /// Relative paths are taken against this directory.
    pub cwd: &'a Path,
}

/// The vault folders a directory walk never enters and named files are refused from (as given
/// and with symbolic links resolved).
fn vault_own_dirs(vault: &Path) -> Vec<PathBuf> {
    let names = wiki_parse::PageKind::ALL
        .iter()
        .map(|k| k.dir())
        .chain([".openclaw-wiki", ".git"]);
    let real = canonical(vault);
    names.flat_map(|n| [vault.join(n), real.join(n)]).collect()
}

/// Read every argument: files, directories (every text file below, hidden entries, `.git` and
/// symbolic links left out) and URLs.
pub fn collect(args: &[String], opts: &CollectOptions<'_>) -> Collected {
    let mut out = Collected::default();
    let own = vault_own_dirs(opts.vault);
    for arg in args {
        if fetch::is_url(arg) {
            match fetch_input(arg.trim(), opts) {
                Ok(input) => out.inputs.push(input),
                Err(p) => {
                    out.problems.push(p);
                    out.named_input_failed = true;
                }
            }
            continue;
        }
        let path = crate::guard::absolute(Path::new(arg), opts.cwd);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {
                out.had_directory = true;
                collect_dir(&path, &own, opts, &mut out);
            }
            Ok(_) => match read_named(&path, &own, opts) {
                Ok(input) => out.inputs.push(input),
                Err(p) => {
                    out.problems.push(p);
                    out.named_input_failed = true;
                }
            },
            Err(e) => {
                out.problems
                    .push(Problem::new(path.display().to_string(), io_message(&e)));
                out.named_input_failed = true;
            }
        }
    }
    out
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Why a file cannot be ingested, or its text.
enum Read {
    Text(String),
    Binary,
    Bad(Problem),
}

fn read_text(path: &Path, shown: &str, max_bytes: u64) -> Read {
    // One open: a directory of thousands of files is mostly system calls.
    // The text becomes a page: never more than a page may hold, whatever `--max-bytes` says.
    let limit = if max_bytes < wiki_vault::PAGE_LIMIT.bytes {
        wiki_cli::read::Limit::new("ingest sources (--max-bytes)", max_bytes)
    } else {
        wiki_vault::PAGE_LIMIT
    };
    let read = std::fs::File::open(path).and_then(|f| {
        if !f.metadata()?.is_file() {
            return Ok(Err("not a regular file".to_string()));
        }
        let bytes = match wiki_cli::read::read_open(f, limit) {
            Err(e) if wiki_cli::read::Limit::is_too_large(&e) => return Ok(Err(e.to_string())),
            read => read?,
        };
        Ok(Ok(bytes))
    });
    let bytes = match read {
        Ok(Ok(b)) => b,
        Ok(Err(m)) => return Read::Bad(Problem::new(shown, m)),
        Err(e) => return Read::Bad(Problem::new(shown, io_message(&e))),
    };
    if problem::looks_binary(&bytes) {
        return Read::Binary;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Read::Text(text),
        Err(e) => Read::Bad(
            problem::utf8(shown, e.as_bytes())
                .err()
                .unwrap_or_else(|| Problem::new(shown, "not valid UTF-8")),
        ),
    }
}

/// The canonical path (symbolic links resolved), falling back to the absolute path.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn read_named(path: &Path, own: &[PathBuf], opts: &CollectOptions<'_>) -> Result<Input, Problem> {
    let real = canonical(path);
    let shown = real.display().to_string();
    if own.iter().any(|d| real.starts_with(d)) {
        return Err(Problem::new(
            shown,
            "is inside the vault's own folders; ingest brings in files from outside them",
        ));
    }
    match read_text(&real, &shown, opts.limits.max_bytes) {
        Read::Text(text) => Ok(Input {
            title: opts
                .title
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| render::title_from_file_name(&file_name(&real))),
            source: shown,
            origin: Origin::File,
            text,
        }),
        Read::Binary => Err(Problem::bare(
            shown.clone(),
            format!("Cannot ingest binary file as markdown source: {shown}"),
        )),
        Read::Bad(p) => Err(p),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn collect_dir(dir: &Path, own: &[PathBuf], opts: &CollectOptions<'_>, out: &mut Collected) {
    let root = canonical(dir);
    if own.iter().any(|d| root.starts_with(d)) {
        out.problems.push(Problem::new(
            root.display().to_string(),
            "is inside the vault's own folders; ingest brings in files from outside them",
        ));
        out.named_input_failed = true;
        return;
    }
    let (found, left) = walk::walk(
        &root,
        &walk::Options {
            skip_hidden: true,
            skip_names: &[],
            skip_dirs: own,
        },
    );
    for l in left {
        match l {
            walk::Left::Symlink(rel) => out.skipped.push(Skipped {
                path: root.join(rel).display().to_string(),
                reason: "symbolic link (not followed)".into(),
            }),
            walk::Left::Special(rel) => out.skipped.push(Skipped {
                path: root.join(rel).display().to_string(),
                reason: "not a regular file".into(),
            }),
            walk::Left::Unreadable(rel, e) => out
                .problems
                .push(Problem::new(root.join(rel).display().to_string(), e)),
        }
    }
    let progress = Progress::new(found.len(), "reading files");
    let read: Vec<(String, Read)> = found
        .par_iter()
        .map(|f| {
            let shown = f.abs.display().to_string();
            let r = read_text(&f.abs, &shown, opts.limits.max_bytes);
            progress.inc();
            (shown, r)
        })
        .collect();
    progress.finish();
    for ((shown, r), f) in read.into_iter().zip(&found) {
        match r {
            Read::Text(text) => out.inputs.push(Input {
                title: render::title_from_file_name(&file_name(&f.abs)),
                source: shown,
                origin: Origin::File,
                text,
            }),
            Read::Binary => out.skipped.push(Skipped {
                path: shown,
                reason: "binary file".into(),
            }),
            Read::Bad(p) => out.problems.push(p),
        }
    }
}

fn fetch_input(url: &str, opts: &CollectOptions<'_>) -> Result<Input, Problem> {
    if !opts.allow_url {
        let origin = opts
            .config_file
            .map(|f| format!(" in {}", f.display()))
            .unwrap_or_default();
        return Err(Problem::new(
            url,
            format!("URL ingest is disabled (ingest.allowUrlIngest is false{origin})"),
        ));
    }
    let fetched = fetch::fetch(url, opts.limits).map_err(|m| Problem::new(url, m))?;
    if problem::looks_binary(&fetched.body) {
        return Err(Problem::new(
            url,
            format!(
                "the body is binary (a NUL byte in its first 4096 bytes) although its content type is `{}`",
                fetched.content_type
            ),
        ));
    }
    let text = String::from_utf8(fetched.body).map_err(|e| {
        problem::utf8(url, e.as_bytes())
            .err()
            .unwrap_or_else(|| Problem::new(url, "not valid UTF-8"))
    })?;
    let title = opts
        .title
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .or_else(|| {
            fetched
                .content_type
                .to_ascii_lowercase()
                .contains("html")
                .then(|| fetch::html_title(&text))
                .flatten()
        })
        .unwrap_or_else(|| url_title(fetched.final_url.as_deref().unwrap_or(url)));
    Ok(Input {
        source: url.to_string(),
        origin: Origin::Url {
            final_url: fetched.final_url,
            content_type: fetched.content_type,
        },
        title,
        text,
    })
}

/// A title from a URL: its last path segment as a file name, else its host.
fn url_title(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let last = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("");
    let decoded = percent_encoding::percent_decode_str(last).decode_utf8_lossy();
    let title = render::title_from_file_name(&decoded);
    if title.is_empty() {
        host.to_string()
    } else {
        title
    }
}

/// What happened to one input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The canonical path or URL.
    pub source_path: String,
    /// The page id.
    pub page_id: String,
    /// The page path.
    pub page_path: String,
    /// The page title.
    pub title: String,
    /// Bytes of the content.
    pub bytes: usize,
    /// Whether the page is new.
    pub created: bool,
    /// Whether the page changed.
    pub changed: bool,
}

/// Existing pages that matter for identity.
#[derive(Default)]
struct SourceIndex {
    /// Source (canonical path or URL) → (page path, page id).
    by_source: HashMap<String, (String, Option<String>)>,
    /// The frontmatter of the ingested pages, by page path (parsed once).
    frontmatter: HashMap<String, Mapping>,
    /// Every page path (taken).
    taken: HashSet<String>,
}

/// What an ingested page's frontmatter says about where it came from (source, id), and the
/// frontmatter.
fn ingested_source(path: &str, bytes: &[u8]) -> Option<(String, Option<String>, Mapping)> {
    // Cheap test first: most pages of a large vault are something else.
    let head = wiki_parse::frontmatter::declaring_part(bytes);
    if memchr_find(head, b"local-file").is_none() && memchr_find(head, b"sourceUrl").is_none() {
        return None;
    }
    let fm = wiki_parse::parse_frontmatter(path, bytes).ok()?.frontmatter;
    let id = opt_string(fm.get("id"));
    let source = match opt_string(fm.get("sourceType")).as_deref() {
        Some("local-file") => opt_string(fm.get("sourcePath"))?,
        Some("url") => opt_string(fm.get("sourceUrl"))?,
        _ => return None,
    };
    Some((source, id, fm))
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl SourceIndex {
    fn build(files: &dyn VaultFiles) -> Result<SourceIndex> {
        let taken: HashSet<String> = files.page_paths().iter().cloned().collect();
        let sources: Vec<String> = files
            .page_paths()
            .iter()
            .filter(|p| p.starts_with("sources/"))
            .cloned()
            .collect();
        files.prefetch(&sources);
        let mut read: Vec<(&str, Cow<'_, [u8]>)> = Vec::with_capacity(sources.len());
        for p in &sources {
            if let Some(b) = files.read(p)? {
                read.push((p.as_str(), b));
            }
        }
        let found: Vec<(String, String, Option<String>, Mapping)> = read
            .par_iter()
            .filter_map(|(p, b)| {
                ingested_source(p, b).map(|(s, id, fm)| (s, p.to_string(), id, fm))
            })
            .collect();
        let mut by_source = HashMap::with_capacity(found.len());
        let mut frontmatter = HashMap::with_capacity(found.len());
        for (source, path, id, fm) in found {
            // Pages are listed in path order: the first page of a source wins.
            by_source.entry(source).or_insert((path.clone(), id));
            frontmatter.insert(path, fm);
        }
        Ok(SourceIndex {
            by_source,
            frontmatter,
            taken,
        })
    }
}

/// The batch that writes the source pages of [`Input`]s.
pub struct IngestBatch<'a> {
    inputs: &'a [Input],
    now: &'a str,
    /// The vault's work tree, when the branch is checked out (symbolic links are checked there).
    worktree: Option<&'a Path>,
    /// One outcome per input that got a page (after [`Batch::prepare`]).
    pub outcomes: Vec<Outcome>,
    /// Inputs whose page could not be written.
    pub problems: Vec<Problem>,
}

impl<'a> IngestBatch<'a> {
    /// A batch for `inputs`, stamped `now`.
    pub fn new(inputs: &'a [Input], now: &'a str, worktree: Option<&'a Path>) -> IngestBatch<'a> {
        IngestBatch {
            inputs,
            now,
            worktree,
            outcomes: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Page path and id for `input`, recorded as taken.
    fn identity(
        &self,
        index: &mut SourceIndex,
        input: &Input,
    ) -> Result<(String, String), Problem> {
        if let Some((path, id)) = index.by_source.get(&input.source) {
            let id = id
                .clone()
                .unwrap_or_else(|| format!("source.{}", wiki_parse::page::file_stem(path)));
            return Ok((path.clone(), id));
        }
        let slug = slug::slugify(&input.title);
        let plain = format!(
            "sources/{}",
            slug::page_filename(&slug::slugify_page_stem(&input.title))
        );
        let hashed_slug = format!("{slug}-{}", &slug::sha1_hex(&input.source)[..12]);
        let hashed = format!("sources/{}", slug::page_filename(&hashed_slug));
        let candidates = [
            (plain, format!("source.{slug}")),
            (hashed, format!("source.{hashed_slug}")),
        ];
        for (path, id) in candidates {
            if index.taken.contains(&path) {
                continue;
            }
            if let Some(vault) = self.worktree
                && let Err(m) = crate::guard::check_writable(vault, &path, "imported source page")
            {
                return Err(Problem::new(input.source.clone(), m));
            }
            index.taken.insert(path.clone());
            index
                .by_source
                .insert(input.source.clone(), (path.clone(), Some(id.clone())));
            return Ok((path, id));
        }
        Err(Problem::new(
            input.source.clone(),
            format!(
                "no free page: sources/{}.md and its hashed variant are both taken by other pages",
                slug::slugify_page_stem(&input.title)
            ),
        ))
    }
}

impl Batch for IngestBatch<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>> {
        let mut index = SourceIndex::build(files)?;
        self.outcomes.clear();
        self.problems.clear();
        let mut claimed = Vec::with_capacity(self.inputs.len());
        for input in self.inputs {
            match self.identity(&mut index, input) {
                Ok((path, id)) => claimed.push((input, path, id)),
                Err(p) => self.problems.push(p),
            }
        }
        let paths: Vec<String> = claimed.iter().map(|(_, p, _)| p.clone()).collect();
        files.prefetch(&paths);
        let mut existing: Vec<Option<Cow<'_, [u8]>>> = Vec::with_capacity(claimed.len());
        for p in &paths {
            existing.push(files.read(p)?);
        }
        let rendered: Vec<(Outcome, Option<FileChange>)> = claimed
            .par_iter()
            .zip(existing.par_iter())
            .map(|((input, path, id), old)| {
                let fm = index.frontmatter.get(path.as_str());
                render_input(input, path, id, old.as_deref(), fm, self.now)
            })
            .collect();
        let mut changes = Vec::new();
        for (outcome, change) in rendered {
            self.outcomes.push(outcome);
            changes.extend(change);
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>) {
        let changed: Vec<&Outcome> = self.outcomes.iter().filter(|o| o.changed).collect();
        let subject = match changed.as_slice() {
            [one] => format!("wiki ingest: {}", one.page_path),
            many => format!(
                "wiki ingest: {}",
                crate::commit::count(many.len(), "source page")
            ),
        };
        let changes: Vec<FileChange> = changed
            .iter()
            .map(|o| FileChange {
                path: o.page_path.clone(),
                before: None,
                after: None,
                blob: None,
            })
            .collect();
        crate::commit::message("ingest", subject, &changes, compiled, &[], agent)
    }
}

/// The page of one input over its existing version: unchanged when only the timestamps would
/// differ.
fn render_input(
    input: &Input,
    path: &str,
    id: &str,
    old: Option<&[u8]>,
    parsed: Option<&Mapping>,
    now: &str,
) -> (Outcome, Option<FileChange>) {
    let old_text = old.and_then(|b| std::str::from_utf8(b).ok());
    let base = match (parsed, old) {
        (Some(fm), _) => fm.clone(),
        (None, Some(b)) => wiki_parse::parse_frontmatter(path, b)
            .map(|f| f.frontmatter)
            .unwrap_or_default(),
        (None, None) => Mapping::new(),
    };
    let prior = |key: &str| opt_string(base.get(key)).unwrap_or_else(|| now.to_string());
    let ingested_at = prior("ingestedAt");
    let page = |updated: &str, fetched: &str| {
        let rendered = source_page(input, id, &base, &ingested_at, updated, fetched);
        render::keep_existing_blocks(&rendered, old_text)
    };
    let same = page(&prior("updatedAt"), &prior("fetchedAt"));
    let changed = old_text != Some(same.as_str());
    let outcome = Outcome {
        source_path: input.source.clone(),
        page_id: id.to_string(),
        page_path: path.to_string(),
        title: input.title.clone(),
        bytes: input.text.len(),
        created: old.is_none(),
        changed,
    };
    if !changed {
        return (outcome, None);
    }
    let after = page(now, now);
    let change = FileChange {
        path: path.to_string(),
        before: old.map(<[u8]>::to_vec),
        after: Some(after.into_bytes()),
        blob: None,
    };
    (outcome, Some(change))
}

/// The source page of `input` (§3.2 layout; URLs add where and when they were fetched).
fn source_page(
    input: &Input,
    id: &str,
    base: &Mapping,
    ingested_at: &str,
    updated_at: &str,
    fetched_at: &str,
) -> String {
    use render::s;
    let mut fm = base.clone();
    let mut set = |k: &str, v: Value| {
        fm.insert(s(k), v);
    };
    set("pageType", s("source"));
    set("id", s(id));
    set("title", s(&input.title));
    let mut body = format!("# {}\n\n## Source\n", input.title);
    match &input.origin {
        Origin::File => {
            set("sourceType", s("local-file"));
            set("sourcePath", s(&input.source));
            body.push_str(&format!(
                "- Type: `local-file`\n- Path: `{}`\n",
                input.source
            ));
        }
        Origin::Url {
            final_url,
            content_type,
        } => {
            set("sourceType", s("url"));
            set("sourceUrl", s(&input.source));
            if let Some(f) = final_url {
                set("finalUrl", s(f));
            }
            set("contentType", s(content_type));
            set("fetchedAt", s(fetched_at));
            body.push_str(&format!("- Type: `url`\n- URL: `{}`\n", input.source));
            if let Some(f) = final_url {
                body.push_str(&format!("- Final URL: `{f}`\n"));
            }
            body.push_str(&format!(
                "- Content type: `{content_type}`\n- Fetched: {fetched_at}\n"
            ));
        }
    }
    set("ingestedAt", s(ingested_at));
    set("updatedAt", s(updated_at));
    set("status", s("active"));
    body.push_str(&format!(
        "- Bytes: {}\n- Updated: {updated_at}\n\n## Content\n{}\n\n{}",
        input.text.len(),
        render::fence(&input.text, "text"),
        render::notes_section()
    ));
    render::page(&fm, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(source: &str, title: &str, text: &str) -> Input {
        Input {
            source: source.into(),
            origin: Origin::File,
            title: title.into(),
            text: text.into(),
        }
    }

    /// Reference §3.2's vector (before compile adds the Related block).
    #[test]
    fn reference_source_page() {
        let i = input(
            "/d/meeting-notes.txt",
            "meeting notes",
            "hello from source\n",
        );
        let (o, c) = render_input(
            &i,
            "sources/meeting-notes.md",
            "source.meeting-notes",
            None,
            None,
            "2026-04-05T12:00:00.000Z",
        );
        assert!(o.created && o.changed && o.bytes == 18);
        let page = String::from_utf8(c.unwrap().after.unwrap()).unwrap();
        assert_eq!(
            page,
            "---\npageType: source\nid: source.meeting-notes\ntitle: meeting notes\nsourceType: local-file\nsourcePath: /d/meeting-notes.txt\ningestedAt: 2026-04-05T12:00:00.000Z\nupdatedAt: 2026-04-05T12:00:00.000Z\nstatus: active\n---\n\n# meeting notes\n\n## Source\n- Type: `local-file`\n- Path: `/d/meeting-notes.txt`\n- Bytes: 18\n- Updated: 2026-04-05T12:00:00.000Z\n\n## Content\n```text\nhello from source\n\n```\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n"
        );
    }

    #[test]
    fn unchanged_content_keeps_the_page() {
        let i = input("/d/a.md", "a", "x\n");
        let (_, c) = render_input(
            &i,
            "sources/a.md",
            "source.a",
            None,
            None,
            "2026-01-01T00:00:00.000Z",
        );
        let first = c.unwrap().after.unwrap();
        let (o, c) = render_input(
            &i,
            "sources/a.md",
            "source.a",
            Some(&first),
            None,
            "2026-02-01T00:00:00.000Z",
        );
        assert!(!o.changed && !o.created && c.is_none());
        let edited = input("/d/a.md", "a", "y\n");
        let (o, c) = render_input(
            &edited,
            "sources/a.md",
            "source.a",
            Some(&first),
            None,
            "2026-02-01T00:00:00.000Z",
        );
        assert!(o.changed);
        let page = String::from_utf8(c.unwrap().after.unwrap()).unwrap();
        assert!(
            page.contains(
                "ingestedAt: 2026-01-01T00:00:00.000Z\nupdatedAt: 2026-02-01T00:00:00.000Z\n"
            ),
            "{page}"
        );
    }

    #[test]
    fn url_titles() {
        assert_eq!(
            url_title("https://example.com/docs/getting_started.html?x=1"),
            "getting started"
        );
        assert_eq!(url_title("https://example.com/"), "example.com");
        assert_eq!(url_title("http://h:8080/a%20b/"), "a b");
    }
}
