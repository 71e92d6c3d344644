//! `wiki unsafe-local import`: explicitly configured private paths as source pages
//! (reference §11.6), active only with `vaultMode: "unsafe-local"`,
//! `unsafeLocal.allowPrivateMemoryCoreAccess: true` and at least one `unsafeLocal.paths` entry.
//!
//! A configured directory contributes every file below it whose extension is `.json`,
//! `.jsonl`, `.md`, `.txt`, `.yaml` or `.yml` (any case; symbolic links and `.git` left out); a
//! configured file contributes itself whatever its extension; a missing path contributes
//! nothing. Pruning never removes the pages of a configured directory that is missing or
//! unreadable in this run (a transient outage), while a file deleted from a readable
//! directory loses its page.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::render::{self, s};
use crate::sync::{self, Doc, Template};
use crate::walk;

/// Extensions a configured directory contributes.
const TEXT_EXTENSIONS: [&str; 6] = ["json", "jsonl", "md", "txt", "yaml", "yml"];

fn extension(path: &str) -> String {
    Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// The fence info string for a file.
fn fence_info(path: &str) -> &'static str {
    match extension(path).as_str() {
        "json" | "jsonl" => "json",
        "yaml" | "yml" => "yaml",
        "txt" => "text",
        _ => "markdown",
    }
}

fn base_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Page id and path of `file` found through `configured` (§11.6).
pub fn page_identity(configured: &Path, file: &Path) -> (String, String) {
    let slug = format!(
        "{}-{}-{}-{}",
        wiki_parse::slug::slugify(&base_name(configured)),
        &wiki_parse::slug::sha1_hex(&configured.to_string_lossy())[..8],
        wiki_parse::slug::slugify(&base_name(file)),
        &wiki_parse::slug::sha1_hex(&file.to_string_lossy())[..8],
    );
    let name = wiki_parse::slug::page_filename(&format!("unsafe-local-{slug}"));
    (
        format!("source.unsafe-local.{slug}"),
        format!("sources/{name}"),
    )
}

fn doc(configured: &Path, file: &Path, rel: &str) -> Doc {
    let (id, page_path) = page_identity(configured, file);
    let title = format!("Unsafe Local Import: {rel}");
    let conf = configured.to_string_lossy().into_owned();
    let abs = file.to_string_lossy().into_owned();
    let frontmatter = render::mapping([
        ("pageType", s("source")),
        ("id", s(&id)),
        ("title", s(&title)),
        ("sourceType", s("memory-unsafe-local")),
        ("provenanceMode", s("unsafe-local")),
        ("sourcePath", s(&abs)),
        ("unsafeLocalConfiguredPath", s(&conf)),
        ("unsafeLocalRelativePath", s(rel)),
    ]);
    Doc {
        sync_key: std::fs::canonicalize(file)
            .map_or_else(|_| abs.clone(), |p| p.to_string_lossy().into_owned()),
        source_path: abs,
        page_path,
        fingerprint: sync::fingerprint(&json!({
            "configuredPath": conf,
            "relativePath": rel,
        })),
        template: Template {
            frontmatter,
            title,
            section: "Unsafe Local Source",
            lines: vec![
                format!("- Configured path: `{conf}`"),
                format!("- Relative path: `{rel}`"),
            ],
            fence_info: fence_info(rel),
        },
    }
}

/// What an unsafe-local run reads.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Docs to mirror, de-duplicated by real path.
    pub docs: Vec<Doc>,
    /// Configured directories that could not be read in this run (their pages are kept).
    pub unavailable: Vec<PathBuf>,
}

/// The docs of the configured paths.
pub fn plan(paths: &[PathBuf]) -> Plan {
    let mut plan = Plan::default();
    let push =
        |d: Doc, plan: &mut Plan| match plan.docs.iter_mut().find(|x| x.sync_key == d.sync_key) {
            Some(x) => *x = d,
            None => plan.docs.push(d),
        };
    for configured in paths {
        match std::fs::metadata(configured) {
            Ok(m) if m.is_dir() => {
                let (found, left) = walk::walk(
                    configured,
                    &walk::Options {
                        skip_hidden: false,
                        skip_names: &[".git"],
                        skip_dirs: &[],
                    },
                );
                if left
                    .iter()
                    .any(|l| matches!(l, walk::Left::Unreadable(r, _) if r == "."))
                {
                    plan.unavailable.push(configured.clone());
                    continue;
                }
                for f in found {
                    if TEXT_EXTENSIONS.contains(&extension(&f.rel).as_str()) {
                        let d = doc(configured, &f.abs, &f.rel);
                        push(d, &mut plan);
                    }
                }
            }
            Ok(m) if m.is_file() => {
                let d = doc(configured, configured, &base_name(configured));
                push(d, &mut plan);
            }
            Ok(_) => {}
            // A missing path contributes nothing; it may be a directory that is away for now.
            Err(_) => plan.unavailable.push(configured.clone()),
        }
    }
    plan
}

/// The pruning guard rail: entries under a configured path that is unavailable are kept.
pub fn keep_unseen(unavailable: &[PathBuf], entry: &sync::Entry) -> bool {
    let source = Path::new(&entry.source_path);
    unavailable.iter().any(|p| source.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_identity() {
        assert_eq!(fence_info("a/b.JSONL"), "json");
        assert_eq!(fence_info("x.yml"), "yaml");
        assert_eq!(fence_info("n.txt"), "text");
        assert_eq!(fence_info("events.log"), "markdown");
        let (id, path) = page_identity(Path::new("/p/notes"), Path::new("/p/notes/a.md"));
        let h1 = &wiki_parse::slug::sha1_hex("/p/notes")[..8];
        let h2 = &wiki_parse::slug::sha1_hex("/p/notes/a.md")[..8];
        assert_eq!(id, format!("source.unsafe-local.notes-{h1}-a-md-{h2}"));
        assert_eq!(
            path,
            format!("sources/unsafe-local-notes-{h1}-a-md-{h2}.md")
        );
    }
}
