//! The vault layout created by `wiki init` (reference §1.2): directories, starter files and
//! their exact bytes, and the `.gitignore` for derived files.

/// Directories created by `init`, in creation order.
pub const DIRECTORIES: [&str; 10] = [
    "entities",
    "concepts",
    "syntheses",
    "sources",
    "reports",
    "_attachments",
    "_views",
    ".openclaw-wiki",
    ".openclaw-wiki/locks",
    ".openclaw-wiki/cache",
];

/// The compiled agent digest.
pub const AGENT_DIGEST_PATH: &str = ".openclaw-wiki/cache/agent-digest.json";
/// The compiled claim lines.
pub const CLAIMS_PATH: &str = ".openclaw-wiki/cache/claims.jsonl";
/// The directory of the compiled caches (derived, git-ignored files).
pub const CACHE_DIR: &str = ".openclaw-wiki/cache";
/// The largest compiled cache file read (`agent-digest.json`, `claims.jsonl`): they grow with
/// the vault (about 18 MB and 12 MB at 10,000 pages), far below this; a larger file is treated
/// as absent (stale), never read into memory at its claimed size.
pub const MAX_DERIVED_BYTES: u64 = 512 * 1024 * 1024;

/// Whether a vault path is a derived compiled cache file ([`AGENT_DIGEST_PATH`],
/// [`CLAIMS_PATH`]): written beside the pages, never committed.
pub fn is_derived(path: &str) -> bool {
    path == AGENT_DIGEST_PATH || path == CLAIMS_PATH
}

/// Whether every component of the vault-relative directory `rel` (`/`-separated) under `vault`
/// is a directory, not a symbolic link: a tool about to remove what is below it never reaches
/// outside the vault.
pub fn real_directories(vault: &std::path::Path, rel: &str) -> bool {
    let mut path = vault.to_path_buf();
    rel.split('/').all(|part| {
        path.push(part);
        std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
    })
}

/// The bytes of the files below `dir` (symbolic links are counted as links, not followed).
pub fn tree_bytes(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match std::fs::symlink_metadata(e.path()) {
            Ok(m) if m.is_dir() => tree_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Where the compiled cache file `path` (e.g. [`CLAIMS_PATH`]) of a branch lives: `path` itself
/// for the checked-out branch (`agent` = `None`), `.openclaw-wiki/cache/agents/<ID>/<file>` for
/// an agent branch that is not checked out (it has no work tree of its own).
pub fn cache_location(path: &str, agent: Option<&str>) -> String {
    match (
        agent,
        path.strip_prefix(CACHE_DIR)
            .and_then(|r| r.strip_prefix('/')),
    ) {
        (Some(id), Some(file)) => format!("{CACHE_DIR}/agents/{id}/{file}"),
        _ => path.to_string(),
    }
}
/// The operation log.
pub const LOG_PATH: &str = ".openclaw-wiki/log.jsonl";
/// Vault state.
pub const STATE_PATH: &str = ".openclaw-wiki/state.json";
/// The `.gitignore` written by `init` (vault-relative).
pub const GITIGNORE_PATH: &str = ".gitignore";

/// Rendering mode of generated links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// `[Title](relative/path.md)`.
    #[default]
    Native,
    /// `[[path/without-ext|Title]]`.
    Obsidian,
}

impl RenderMode {
    /// `native` or `obsidian`.
    pub fn as_str(self) -> &'static str {
        match self {
            RenderMode::Native => "native",
            RenderMode::Obsidian => "obsidian",
        }
    }

    /// Parse `native` / `obsidian`.
    pub fn parse(s: &str) -> Option<RenderMode> {
        match s.trim() {
            "native" => Some(RenderMode::Native),
            "obsidian" => Some(RenderMode::Obsidian),
            _ => None,
        }
    }
}

/// Settings that appear in the starter files.
#[derive(Debug, Clone)]
pub struct InitSettings {
    /// `isolated`, `bridge` or `unsafe-local`.
    pub vault_mode: String,
    /// Link rendering.
    pub render_mode: RenderMode,
    /// Default search corpus (`wiki`, `memory`, `all`).
    pub search_corpus: String,
}

impl Default for InitSettings {
    fn default() -> Self {
        InitSettings {
            vault_mode: "isolated".into(),
            render_mode: RenderMode::Native,
            search_corpus: "wiki".into(),
        }
    }
}

/// `AGENTS.md`.
pub fn agents_md() -> String {
    [
        "# Memory Wiki Agent Guide",
        "",
        "- Treat generated blocks as plugin-owned.",
        "- Preserve human notes outside managed markers.",
        "- Prefer source-backed claims over wiki-to-wiki citation loops.",
        "- Prefer structured `claims` with evidence over burying key beliefs only in prose.",
        "- Use `.openclaw-wiki/cache/agent-digest.json` and `claims.jsonl` for machine reads; markdown pages are the human view.",
        "",
    ]
    .join("\n")
}

/// `WIKI.md`.
pub fn wiki_md(settings: &InitSettings) -> String {
    [
        "# Memory Wiki".to_string(),
        String::new(),
        "This vault is maintained by the OpenClaw memory-wiki plugin.".to_string(),
        String::new(),
        format!("- Vault mode: `{}`", settings.vault_mode),
        format!("- Render mode: `{}`", settings.render_mode.as_str()),
        format!("- Search corpus default: `{}`", settings.search_corpus),
        String::new(),
        "## Architecture".to_string(),
        "- Raw sources remain the evidence layer.".to_string(),
        "- To keep unmanaged raw Markdown in `sources/`, add `<!-- openclaw:wiki:raw-source -->` near the top of the page.".to_string(),
        "- Wiki pages are the human-readable synthesis layer.".to_string(),
        "- `.openclaw-wiki/cache/agent-digest.json` is the agent-facing compiled digest."
            .to_string(),
        String::new(),
        "## Notes".to_string(),
        crate::markers::HUMAN_START.to_string(),
        crate::markers::HUMAN_END.to_string(),
        String::new(),
    ]
    .join("\n")
}

/// `index.md` before the first compile.
pub const INDEX_MD: &str = "# Wiki Index\n\n## Generated\n<!-- openclaw:wiki:index:start -->\n- No compiled pages yet.\n<!-- openclaw:wiki:index:end -->\n";

/// `inbox.md`.
pub const INBOX_MD: &str = "# Inbox\n\nDrop raw ideas, questions, and source links here.\n";

/// `.openclaw-wiki/state.json` (2-space pretty JSON plus newline).
pub fn state_json(created_at: &str, render_mode: RenderMode) -> String {
    let value = serde_json::json!({
        "version": 1,
        "createdAt": created_at,
        "renderMode": render_mode.as_str(),
    });
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}

/// The `.gitignore` for derived, rebuildable files: locks, temporary files (compile and parse
/// caches), the search index sidecar, the compiled caches (`agent-digest.json`, `claims.jsonl`:
/// rebuilt by `wiki compile`, 30 MB per change on a 10k-page vault if committed) and the local
/// operation log (git history is the durable log).
pub const GITIGNORE: &str = "# Derived, rebuildable files (wiki toolchain)\n.openclaw-wiki/locks/\n.openclaw-wiki/index/\n.openclaw-wiki/tmp/\n.openclaw-wiki/cache/\n.openclaw-wiki/log.jsonl\n";

/// Root-level files that are not pages (never valid link targets).
pub const ROOT_FILES: [&str; 4] = ["AGENTS.md", "WIKI.md", "index.md", "inbox.md"];

/// Directory of temporary derived files (compile cache, parse cache); git-ignored.
pub const TMP_DIR: &str = ".openclaw-wiki/tmp";

/// Write a derived (rebuildable, never committed) file at vault path `rel`: a temporary file in
/// the same directory renamed into place, so readers never see a partial file. Missing
/// directories are created; symbolic links are never followed (a link or a non-directory on the
/// way, or a link at `rel`, is an error). Temporary files of the same name left by killed
/// writers are removed after the rename.
pub fn write_derived_file(
    vault_dir: &std::path::Path,
    rel: &str,
    bytes: &[u8],
) -> std::io::Result<()> {
    stage_derived_file(vault_dir, rel, bytes)?.persist()
}

/// A derived file written under its temporary name and not yet renamed into place (see
/// [`stage_derived_file`]): [`StagedFile::persist`] renames it; dropping it removes the
/// temporary file.
#[derive(Debug)]
pub struct StagedFile {
    tmp: std::path::PathBuf,
    target: std::path::PathBuf,
    dir: std::path::PathBuf,
    name: String,
    done: bool,
}

impl StagedFile {
    /// Rename the temporary file into place and remove the temporary files of the same name
    /// that killed writers left.
    pub fn persist(mut self) -> std::io::Result<()> {
        std::fs::rename(&self.tmp, &self.target)?;
        self.done = true;
        remove_dead_temps(&self.dir, &self.name);
        Ok(())
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The first half of [`write_derived_file`]: the same checks, and `bytes` written to a
/// temporary file in the target's directory, so that the (slow, for a large file) write can
/// happen while something else runs and the rename later, or not at all.
pub fn stage_derived_file(
    vault_dir: &std::path::Path,
    rel: &str,
    bytes: &[u8],
) -> std::io::Result<StagedFile> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static TEMPS: AtomicUsize = AtomicUsize::new(0);
    let mut dir = vault_dir.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    let (name, parents) = parts.split_last().unwrap_or((&"", &[]));
    for part in parents {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{}: not a directory (symbolic links are not followed)",
                    dir.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::create_dir(&dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            },
            Err(e) => return Err(e),
        }
    }
    let target = dir.join(name);
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other(format!(
            "{}: is a symbolic link, not replaced",
            target.display()
        )));
    }
    let n = TEMPS.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
    let staged = StagedFile {
        tmp,
        target,
        dir,
        name: (*name).to_string(),
        done: false,
    };
    std::fs::write(&staged.tmp, bytes)?;
    Ok(staged)
}

/// Remove the temporary files `.NAME.<pid>-<n>.tmp` that writers killed before their rename
/// left in `dir` (Linux: a writer is dead when `/proc/<pid>` is gone; elsewhere nothing is
/// removed). Best effort: the files are git-ignored and only cost space.
fn remove_dead_temps(dir: &std::path::Path, name: &str) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    let me = std::process::id();
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, n)| {
                n.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then_some(pid)?
                    .parse::<u32>()
                    .ok()
            })
        else {
            continue;
        };
        let dead = pid != me && !std::path::Path::new("/proc").join(pid.to_string()).exists();
        if dead && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Make vault directory `dir` keep itself (and its sub-directories) out of git, whatever the
/// vault's own `.gitignore` says: `dir/.gitignore` of `*`, written when missing (used for
/// `.openclaw-wiki/tmp/` and `.openclaw-wiki/cache/`).
pub fn ensure_ignored_dir(vault_dir: &std::path::Path, dir: &str) -> std::io::Result<()> {
    let ignore = format!("{dir}/.gitignore");
    if std::fs::symlink_metadata(vault_dir.join(&ignore)).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    write_derived_file(vault_dir, &ignore, b"*\n")
}

/// [`write_derived_file`] of `name` into `dir`, after [`ensure_ignored_dir`].
pub fn write_ignored_file(
    vault_dir: &std::path::Path,
    dir: &str,
    name: &str,
    bytes: &[u8],
) -> std::io::Result<()> {
    ensure_ignored_dir(vault_dir, dir)?;
    write_derived_file(vault_dir, &format!("{dir}/{name}"), bytes)
}
