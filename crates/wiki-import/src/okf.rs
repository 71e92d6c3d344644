//! `wiki okf import <dir>`: an unpacked Open Knowledge Format v0.1 bundle as concept pages
//! (reference §10).
//!
//! Every `.md` file of the bundle (`.git` and `node_modules` left out) is a concept document,
//! except files named `index.md` or `log.md` at any depth (reserved; the root `index.md` gives
//! the bundle's `id`/`okf_id`, `name`/`title` and `okf_version`). A concept needs a non-empty
//! `type`. Concepts are flattened to `concepts/okf-<bundle key>-<slug>-<sha1-8>.md`; markdown
//! links between concepts (outside code) are rewritten to the generated pages and recorded as
//! `okf-link` relationships. The producer's frontmatter is kept twice: its keys at the top level
//! (the wiki's own keys win) and whole under `okf.frontmatter`.
//!
//! Problems are warnings (`{code, path, message}`) and the rest of the bundle is imported:
//! `invalid-concept` (unreadable frontmatter), `missing-type`, `unreadable-entry` (unreadable
//! directories or files, symbolic links, hard links), `escaping-link` (a link leaving the
//! bundle; left as written) and `unwritable-page` (the target page is a symbolic link or not a
//! file). Pages of the bundle that the run did not produce are removed only when the run has no
//! warning. A re-import that changes nothing but `importedAt`/`updatedAt` leaves pages alone.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use yaml_serde::{Mapping, Value};

use wiki_apply::edit::FileChange;
use wiki_apply::error::Result;
use wiki_apply::files::VaultFiles;
use wiki_apply::session::Batch;
use wiki_parse::model::{opt_string, single_or_list};
use wiki_parse::slug;

use crate::render::{self, s};
use crate::walk;

/// A warning of an import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// `invalid-concept`, `missing-type`, `unreadable-entry`, `escaping-link`, `unwritable-page`.
    pub code: &'static str,
    /// Bundle-relative path (`.` for the bundle itself).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Warning {
    fn new(code: &'static str, path: &str, message: impl Into<String>) -> Warning {
        Warning {
            code,
            path: path.to_string(),
            message: message.into(),
        }
    }
}

/// One concept document of the bundle.
#[derive(Debug, Clone)]
pub struct Concept {
    /// Bundle-relative path without `.md` (`tables/orders`).
    pub id: String,
    /// Bundle-relative path.
    pub rel: String,
    /// The producer's frontmatter.
    pub frontmatter: Mapping,
    /// The body (CRLF made LF).
    pub body: String,
    /// `type`.
    pub kind: String,
    /// `title`, else the file name with `-`/`_` as spaces.
    pub title: String,
}

/// The bundle as read from disk.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// Absolute bundle path (as given, made absolute).
    pub path: PathBuf,
    /// The directory's name.
    pub name: String,
    /// `okf_version` of the root `index.md`.
    pub version: Option<String>,
    /// The key in page names and ids: the root `index.md`'s `id`/`okf_id`, else its
    /// `name`/`title` (or the directory name) plus a hash of the bundle path.
    pub key: String,
    /// Concepts, sorted by id.
    pub concepts: Vec<Concept>,
    /// Warnings found while reading.
    pub warnings: Vec<Warning>,
}

/// The frontmatter and body of an OKF document (CRLF already made LF).
fn parse_doc(text: &str) -> std::result::Result<(Mapping, String), String> {
    let split = wiki_parse::frontmatter::split(text)
        .map_err(|_| "frontmatter opened with `---` on line 1 is never closed".to_string())?;
    let fm = match split.yaml {
        Some(y) => wiki_parse::yaml::parse_mapping(y, split.yaml_first_line)
            .map_err(|e| format!("line {}: {}", e.line, e.message))?,
        None => Mapping::new(),
    };
    Ok((fm, split.body.to_string()))
}

/// Read a bundle file: a regular file with one link, valid UTF-8, CRLF made LF.
fn read_doc(found: &walk::Found, warnings: &mut Vec<Warning>) -> Option<String> {
    if found.links > 1 {
        warnings.push(Warning::new(
            "unreadable-entry",
            &found.rel,
            "Refusing to import OKF concept through non-regular or hardlinked file.",
        ));
        return None;
    }
    let bytes = match wiki_cli::read::read_bounded(&found.abs, wiki_vault::PAGE_LIMIT) {
        Ok(b) => b,
        Err(e) => {
            warnings.push(Warning::new("unreadable-entry", &found.rel, e.to_string()));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(t) => Some(t.replace("\r\n", "\n")),
        Err(e) => {
            let p = crate::problem::utf8(&found.rel, e.as_bytes()).err();
            let message = p.map_or_else(
                || "not valid UTF-8".to_string(),
                |p| format!("line {}: {}", p.line.unwrap_or(1), p.message),
            );
            warnings.push(Warning::new("unreadable-entry", &found.rel, message));
            None
        }
    }
}

/// Read the bundle at `path` (a directory).
pub fn read_bundle(path: &Path) -> Bundle {
    let mut warnings = Vec::new();
    let (found, left) = walk::walk(
        path,
        &walk::Options {
            skip_hidden: false,
            skip_names: &[".git", "node_modules"],
            skip_dirs: &[],
        },
    );
    for l in left {
        match l {
            walk::Left::Unreadable(rel, e) => {
                warnings.push(Warning::new("unreadable-entry", &rel, e))
            }
            walk::Left::Symlink(rel)
                if rel.ends_with(".md")
                    || std::fs::metadata(path.join(&rel)).is_ok_and(|m| m.is_dir()) =>
            {
                warnings.push(Warning::new(
                    "unreadable-entry",
                    &rel,
                    "Refusing to import OKF concept through symbolic link.",
                ));
            }
            walk::Left::Special(rel) if rel.ends_with(".md") => warnings.push(Warning::new(
                "unreadable-entry",
                &rel,
                "Refusing to import OKF concept through non-regular or hardlinked file.",
            )),
            _ => {}
        }
    }
    let mut root_index = None;
    let mut concepts = Vec::new();
    for f in found.iter().filter(|f| f.rel.ends_with(".md")) {
        let base = f.rel.rsplit('/').next().unwrap_or(&f.rel);
        if f.rel == "index.md" {
            root_index = read_doc(f, &mut warnings);
        }
        if base == "index.md" || base == "log.md" {
            continue;
        }
        let Some(text) = read_doc(f, &mut warnings) else {
            continue;
        };
        match parse_doc(&text) {
            Err(m) => warnings.push(Warning::new("invalid-concept", &f.rel, m)),
            Ok((fm, body)) => match opt_string(fm.get("type")) {
                None => warnings.push(Warning::new(
                    "missing-type",
                    &f.rel,
                    "OKF concept is missing required non-empty type frontmatter.",
                )),
                Some(kind) => {
                    let id = f.rel.strip_suffix(".md").unwrap_or(&f.rel).to_string();
                    let title = opt_string(fm.get("title"))
                        .or_else(|| {
                            Some(render::title_from_file_name(base)).filter(|t| !t.is_empty())
                        })
                        .unwrap_or_else(|| id.clone());
                    concepts.push(Concept {
                        id,
                        rel: f.rel.clone(),
                        frontmatter: fm,
                        body,
                        kind,
                        title,
                    });
                }
            },
        }
    }
    concepts.sort_by(|a, b| a.id.cmp(&b.id));
    let root = root_index
        .as_deref()
        .and_then(|t| parse_doc(t).ok())
        .map(|(fm, _)| fm)
        .unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let key = bundle_key(&root, &name, path);
    Bundle {
        path: path.to_path_buf(),
        version: opt_string(root.get("okf_version")),
        name,
        key,
        concepts,
        warnings,
    }
}

fn bundle_key(root: &Mapping, name: &str, path: &Path) -> String {
    if let Some(id) = opt_string(root.get("id")).or_else(|| opt_string(root.get("okf_id"))) {
        return slug::slugify(&id);
    }
    let label = opt_string(root.get("name"))
        .or_else(|| opt_string(root.get("title")))
        .unwrap_or_else(|| name.to_string());
    let hash = &slug::sha1_hex(&path.to_string_lossy())[..8];
    format!("{}-{hash}", slug::slugify(&label))
}

/// The generated page of a concept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `concept.<stem>`.
    pub id: String,
    /// `concepts/<stem>.md`.
    pub path: String,
    /// The concept's title.
    pub title: String,
}

/// Page id and path of concept `concept_id` of bundle `key`.
pub fn page_identity(key: &str, concept_id: &str) -> (String, String) {
    let stem = format!(
        "okf-{key}-{}-{}",
        slug::slugify(&concept_id.replace('/', "-")),
        &slug::sha1_hex(concept_id)[..8]
    );
    let file = slug::page_filename(&stem);
    let id = format!("concept.{}", file.strip_suffix(".md").unwrap_or(&file));
    (id, format!("concepts/{file}"))
}

/// `a/b/../c` → `a/c`; a leading `..` stays (the path leaves its root).
fn normalize_posix(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// `<dest>` or `dest "title"` → (destination, the rest).
fn split_destination(target: &str) -> (&str, &str) {
    let t = target.trim();
    if let Some(rest) = t.strip_prefix('<')
        && let Some(end) = rest.find('>')
    {
        return (&rest[..end], &rest[end + 1..]);
    }
    match t.find(char::is_whitespace) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, ""),
    }
}

/// Where a link destination points inside the bundle: `Ok(Some(path))` (bundle-relative,
/// normalised, decoded, without `#`/`?`), `Ok(None)` for links that are not paths (empty,
/// `#anchor`, `scheme:`), `Err(())` when it leaves the bundle.
fn resolve_link(source_rel: &str, destination: &str) -> std::result::Result<Option<String>, ()> {
    let d = destination.trim();
    let has_scheme = {
        let mut chars = d.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && d.find(':').is_some_and(|i| {
                d[..i]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            })
    };
    if d.is_empty() || d.starts_with('#') || has_scheme {
        return Ok(None);
    }
    let raw = d.split(['#', '?']).next().unwrap_or("").replace('\\', "/");
    let raw = raw.trim();
    let decoded = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map_or_else(|_| raw.to_string(), Cow::into_owned);
    if decoded.is_empty() {
        return Ok(None);
    }
    let joined = match decoded.strip_prefix('/') {
        Some(abs) => abs.to_string(),
        None => match source_rel.rfind('/') {
            Some(i) => format!("{}/{decoded}", &source_rel[..i]),
            None => decoded,
        },
    };
    let normalized = normalize_posix(&joined);
    if normalized == ".." || normalized.starts_with("../") {
        return Err(());
    }
    Ok(Some(normalized))
}

/// The index of the first `?` or `#` of a destination (its suffix is kept when rewriting).
fn suffix_start(destination: &str) -> Option<usize> {
    destination.find(['?', '#'])
}

/// Rewrites of one document.
struct Rewriter<'a> {
    source_rel: &'a str,
    targets: &'a HashMap<String, Target>,
    linked: Vec<String>,
    escaping: Vec<String>,
}

impl Rewriter<'_> {
    /// `[label](dest)` and `![alt](dest)` links of a text outside code.
    fn rewrite_links(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        // `![alt](dest)` keeps its `!`: it is copied with the text before the `[`.
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find(']') else {
                break;
            };
            let label = &after[..close];
            let tail = &after[close + 1..];
            let Some(inner) = tail.strip_prefix('(') else {
                out.push_str(&rest[..open + 1]);
                rest = after;
                continue;
            };
            let Some(end) = inner.find(')') else {
                out.push_str(&rest[..open + 1]);
                rest = after;
                continue;
            };
            let target = &inner[..end];
            if target.is_empty() {
                out.push_str(&rest[..open + 1]);
                rest = after;
                continue;
            }
            let link_end = open + 1 + close + 1 + 1 + end + 1;
            out.push_str(&rest[..open]);
            match self.rewrite_one(label, target) {
                Some(new) => out.push_str(&new),
                None => out.push_str(&rest[open..link_end]),
            }
            rest = &rest[link_end..];
        }
        out.push_str(rest);
        out
    }

    fn rewrite_one(&mut self, label: &str, target: &str) -> Option<String> {
        let (destination, title) = split_destination(target);
        let resolved = match resolve_link(self.source_rel, destination) {
            Ok(r) => r?,
            Err(()) => {
                self.escaping.push(destination.to_string());
                return None;
            }
        };
        let concept = resolved.strip_suffix(".md")?;
        let page = self.targets.get(concept)?;
        if !self.linked.iter().any(|l| l == concept) {
            self.linked.push(concept.to_string());
        }
        let file = page.path.strip_prefix("concepts/").unwrap_or(&page.path);
        let suffix = suffix_start(destination).map_or("", |i| &destination[i..]);
        Some(format!("[{label}]({file}{suffix}{title})"))
    }

    /// A line outside fenced code: links rewritten except inside inline code spans.
    fn rewrite_line(&mut self, line: &str) -> String {
        let mut out = String::with_capacity(line.len());
        let mut cursor = 0;
        while cursor < line.len() {
            let Some(start) = line[cursor..].find('`').map(|i| cursor + i) else {
                out.push_str(&self.rewrite_links(&line[cursor..]));
                return out;
            };
            out.push_str(&self.rewrite_links(&line[cursor..start]));
            let ticks = line[start..].bytes().take_while(|b| *b == b'`').count();
            let delimiter = &line[start..start + ticks];
            match line[start + ticks..].find(delimiter) {
                Some(i) => {
                    let end = start + ticks + i + ticks;
                    out.push_str(&line[start..end]);
                    cursor = end;
                }
                None => {
                    out.push_str(&line[start..]);
                    return out;
                }
            }
        }
        out
    }

    /// The body with links rewritten outside fenced code blocks and inline code.
    fn rewrite_body(&mut self, body: &str) -> String {
        let mut out = String::with_capacity(body.len());
        let mut fence: Option<(u8, usize)> = None;
        for piece in body.split_inclusive('\n') {
            let (line, nl) = piece.strip_suffix('\n').map_or((piece, ""), |l| (l, "\n"));
            if let Some(opener) = fence_opener(line) {
                match fence {
                    None => fence = Some(opener),
                    Some((c, n)) if opener.0 == c && opener.1 >= n => fence = None,
                    Some(_) => {}
                }
                out.push_str(piece);
                continue;
            }
            if fence.is_some() {
                out.push_str(piece);
            } else {
                out.push_str(&self.rewrite_line(line));
                out.push_str(nl);
            }
        }
        out
    }
}

/// A fence line (up to three spaces, then three or more backticks or tildes): its character
/// and length.
fn fence_opener(line: &str) -> Option<(u8, usize)> {
    let indent = line.bytes().take_while(|b| *b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line.as_bytes()[indent..];
    let c = *rest.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.iter().take_while(|b| **b == c).count();
    (n >= 3).then_some((c, n))
}

/// The frontmatter of a concept page: the wiki's keys (§10 rule 10), then the producer's other
/// keys, then `okf` with the producer's whole frontmatter.
fn page_frontmatter(
    bundle: &Bundle,
    c: &Concept,
    page: &Target,
    linked: &[&Target],
    now: &str,
) -> Mapping {
    let timestamp = opt_string(c.frontmatter.get("timestamp"));
    let mut fm = render::mapping([
        ("pageType", s("concept")),
        ("id", s(&page.id)),
        ("title", s(&c.title)),
        ("sourceType", s("okf")),
        ("provenanceMode", s("okf-import")),
        ("sourcePath", s(&bundle.path.join(&c.rel).to_string_lossy())),
        ("okfConceptId", s(&c.id)),
        ("okfType", s(&c.kind)),
        (
            "sourceIds",
            render::list([format!("source.okf.{}", bundle.key).as_str()]),
        ),
        ("importedAt", s(now)),
        ("updatedAt", s(timestamp.as_deref().unwrap_or(now))),
        ("status", s("active")),
    ]);
    if let Some(d) = opt_string(c.frontmatter.get("description")) {
        fm.insert(s("description"), s(&d));
    }
    if let Some(r) = opt_string(c.frontmatter.get("resource")) {
        fm.insert(s("resource"), s(&r));
    }
    let tags = single_or_list(c.frontmatter.get("tags"));
    if !tags.is_empty() {
        fm.insert(s("tags"), render::list(tags.iter().map(String::as_str)));
    }
    if let Some(t) = &timestamp {
        fm.insert(s("okfTimestamp"), s(t));
    }
    if !linked.is_empty() {
        let rels = linked
            .iter()
            .map(|t| {
                Value::Mapping(render::mapping([
                    ("targetId", s(&t.id)),
                    ("targetPath", s(&t.path)),
                    ("targetTitle", s(&t.title)),
                    ("kind", s("okf-link")),
                    ("evidenceKind", s("okf-markdown-link")),
                ]))
            })
            .collect();
        fm.insert(s("relationships"), Value::Sequence(rels));
    }
    for (k, v) in &c.frontmatter {
        if !fm.contains_key(k) && k.as_str() != Some("okf") {
            fm.insert(k.clone(), v.clone());
        }
    }
    let mut okf = Mapping::new();
    if let Some(v) = &bundle.version {
        okf.insert(s("version"), s(v));
    }
    okf.insert(s("bundleName"), s(&bundle.name));
    okf.insert(s("bundleKey"), s(&bundle.key));
    okf.insert(s("conceptId"), s(&c.id));
    okf.insert(s("sourceRelativePath"), s(&c.rel));
    okf.insert(s("frontmatter"), Value::Mapping(c.frontmatter.clone()));
    fm.insert(s("okf"), Value::Mapping(okf));
    fm
}

/// A page with its generated `## Related` section and its `importedAt:`/`updatedAt:`
/// frontmatter lines left out: two renderings equal under this compare as unchanged.
fn comparable(page: &str) -> String {
    let related = wiki_parse::markers::Block::related();
    let without = match wiki_parse::markers::find_blocks(page, &related).first() {
        Some(span) => {
            let head = page[..span.start].trim_end_matches('\n');
            format!("{head}\n{}", &page[span.end..].trim_start_matches('\n'))
        }
        None => page.to_string(),
    };
    let Ok(split) = wiki_parse::frontmatter::split(&without) else {
        return without.trim_end().to_string();
    };
    let Some(yaml) = split.yaml else {
        return without.trim_end().to_string();
    };
    let kept: String = yaml
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("importedAt: ") && !l.starts_with("updatedAt: "))
        .collect();
    format!("---\n{kept}\n---\n{}", split.body)
        .trim_end()
        .to_string()
}

/// What one concept became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The page path.
    pub path: String,
    /// Whether the page is new.
    pub created: bool,
    /// Whether the page changed.
    pub changed: bool,
}

/// The batch that writes a bundle's concept pages.
pub struct OkfBatch<'a> {
    bundle: &'a Bundle,
    now: &'a str,
    worktree: Option<&'a Path>,
    /// One entry per concept page produced (after [`Batch::prepare`]).
    pub imported: Vec<Imported>,
    /// Stale pages removed.
    pub removed: Vec<String>,
    /// Warnings: the bundle's, then the run's.
    pub warnings: Vec<Warning>,
}

impl<'a> OkfBatch<'a> {
    /// A batch importing `bundle`, stamped `now`.
    pub fn new(bundle: &'a Bundle, now: &'a str, worktree: Option<&'a Path>) -> OkfBatch<'a> {
        OkfBatch {
            bundle,
            now,
            worktree,
            imported: Vec::new(),
            removed: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn stale_pages(&self, files: &dyn VaultFiles, produced: &[String]) -> Result<Vec<FileChange>> {
        let mut out = Vec::new();
        for path in files.page_paths() {
            let Some(name) = path.strip_prefix("concepts/") else {
                continue;
            };
            if name.contains('/')
                || produced.contains(path)
                || !crate::guard::is_page_under(path, "concepts")
            {
                continue;
            }
            let Some(bytes) = files.read(path)? else {
                continue;
            };
            if memchr_contains(&bytes, self.bundle.key.as_bytes())
                && let Ok(f) = wiki_parse::parse_frontmatter(path, &bytes)
                && let Some(Value::Mapping(okf)) = f.frontmatter.get("okf")
                && okf.get("bundleKey").and_then(Value::as_str) == Some(self.bundle.key.as_str())
            {
                out.push(FileChange {
                    path: path.clone(),
                    before: Some(bytes.into_owned()),
                    after: None,
                    blob: None,
                });
            }
        }
        Ok(out)
    }
}

fn memchr_contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

impl Batch for OkfBatch<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>> {
        self.imported.clear();
        self.removed.clear();
        self.warnings = self.bundle.warnings.clone();
        let targets: HashMap<String, Target> = self
            .bundle
            .concepts
            .iter()
            .map(|c| {
                let (id, path) = page_identity(&self.bundle.key, &c.id);
                (
                    c.id.clone(),
                    Target {
                        id,
                        path,
                        title: c.title.clone(),
                    },
                )
            })
            .collect();
        let mut changes = Vec::new();
        let mut produced = Vec::new();
        for c in &self.bundle.concepts {
            let page = &targets[&c.id];
            if let Some(vault) = self.worktree
                && let Err(m) = crate::guard::check_writable(vault, &page.path, "OKF concept page")
            {
                self.warnings
                    .push(Warning::new("unwritable-page", &c.rel, m));
                continue;
            }
            let mut rw = Rewriter {
                source_rel: &c.rel,
                targets: &targets,
                linked: Vec::new(),
                escaping: Vec::new(),
            };
            let body = rw.rewrite_body(&c.body);
            for d in &rw.escaping {
                self.warnings.push(Warning::new(
                    "escaping-link",
                    &c.rel,
                    format!("Link target `{d}` leaves the bundle; left unchanged."),
                ));
            }
            let linked: Vec<&Target> = rw.linked.iter().map(|id| &targets[id]).collect();
            let fm = page_frontmatter(self.bundle, c, page, &linked, self.now);
            let rendered = render::page(&fm, &body);
            let old = files.read(&page.path)?;
            let old_text = old.as_deref().and_then(|b| std::str::from_utf8(b).ok());
            let changed = match old_text {
                Some(t) => t != rendered && comparable(t) != comparable(&rendered),
                None => true,
            };
            produced.push(page.path.clone());
            self.imported.push(Imported {
                path: page.path.clone(),
                created: old.is_none(),
                changed,
            });
            if changed {
                changes.push(FileChange {
                    path: page.path.clone(),
                    before: old.map(Cow::into_owned),
                    after: Some(rendered.into_bytes()),
                    blob: None,
                });
            }
        }
        if self.warnings.is_empty() {
            for stale in self.stale_pages(files, &produced)? {
                self.removed.push(stale.path.clone());
                changes.push(stale);
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>) {
        let changed = self.imported.iter().filter(|i| i.changed).count();
        let subject = format!(
            "wiki okf import: {} from {} ({changed} changed, {} removed)",
            crate::commit::count(self.imported.len(), "concept"),
            self.bundle.name,
            self.removed.len()
        );
        let changes: Vec<FileChange> = self
            .imported
            .iter()
            .filter(|i| i.changed)
            .map(|i| i.path.as_str())
            .chain(self.removed.iter().map(String::as_str))
            .map(|p| FileChange {
                path: p.to_string(),
                before: None,
                after: None,
                blob: None,
            })
            .collect();
        let extra = [("Wiki-Okf-Bundle".to_string(), self.bundle.key.clone())];
        crate::commit::message("okf-import", subject, &changes, compiled, &extra, agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets() -> HashMap<String, Target> {
        ["tables/customers", "metrics/weekly active users"]
            .iter()
            .map(|id| {
                let (pid, path) = page_identity("sales-okf", id);
                (
                    id.to_string(),
                    Target {
                        id: pid,
                        path,
                        title: id.to_string(),
                    },
                )
            })
            .collect()
    }

    #[test]
    fn links_are_rewritten_outside_code_only() {
        let t = targets();
        let mut rw = Rewriter {
            source_rel: "tables/orders.md",
            targets: &t,
            linked: Vec::new(),
            escaping: Vec::new(),
        };
        let body = "See [c](customers.md \"Customers\") and ![i](/metrics/weekly%20active%20users.md?x=1#top).\n`[c](customers.md)` [ext](https://x.y/a.md) [up](../../out.md) [gone](missing.md)\n```\n[c](customers.md)\n```\n";
        let out = rw.rewrite_body(body);
        let (_, cust) = page_identity("sales-okf", "tables/customers");
        let (_, wau) = page_identity("sales-okf", "metrics/weekly active users");
        let cust = cust.strip_prefix("concepts/").unwrap();
        let wau = wau.strip_prefix("concepts/").unwrap();
        assert_eq!(
            out,
            format!(
                "See [c]({cust} \"Customers\") and ![i]({wau}?x=1#top).\n`[c](customers.md)` [ext](https://x.y/a.md) [up](../../out.md) [gone](missing.md)\n```\n[c](customers.md)\n```\n"
            )
        );
        assert_eq!(
            rw.linked,
            ["tables/customers", "metrics/weekly active users"]
        );
        assert_eq!(rw.escaping, ["../../out.md"]);
    }

    #[test]
    fn page_names() {
        let (id, path) = page_identity("sales-okf", "tables/orders");
        let hash = &slug::sha1_hex("tables/orders")[..8];
        assert_eq!(
            path,
            format!("concepts/okf-sales-okf-tables-orders-{hash}.md")
        );
        assert_eq!(id, format!("concept.okf-sales-okf-tables-orders-{hash}"));
        let (_, long) = page_identity("k", &"长".repeat(200));
        assert!(long.len() - "concepts/".len() <= 255);
    }

    #[test]
    fn volatile_lines_and_related_do_not_count() {
        let a = "---\nid: a\nimportedAt: 1\nupdatedAt: 1\n---\n\nbody\n";
        let b = "---\nid: a\nimportedAt: 2\nupdatedAt: 2\n---\n\nbody\n\n## Related\n<!-- openclaw:wiki:related:start -->\n- x\n<!-- openclaw:wiki:related:end -->\n";
        assert_eq!(comparable(a), comparable(b));
        assert_ne!(comparable(a), comparable("---\nid: a\n---\n\nbody 2\n"));
    }
}
