//! The agent workspace: where it is, which memory files it holds, reading them safely, and
//! committing what the tools write (every change is a git commit, so `wiki rollback` undoes it).
//!
//! Location: `--workspace DIR`, else `$WIKI_MEMORY_DIR` (the memory corpus's own variable), else
//! the agent's workspace of the OpenClaw config (`agents.list[].workspace`,
//! `agents.defaults.workspace`), else `$OPENCLAW_WORKSPACE_DIR`, else
//! `$OPENCLAW_STATE_DIR/workspace` (`~/.openclaw/workspace`).
//!
//! Files (seed 002): `MEMORY.md` (or `memory.md`), the curated layer loaded at session start;
//! daily notes `memory/YYYY-MM-DD.md` and `memory/YYYY-MM-DD-<slug>.md` (also in sub-folders of
//! `memory/`); `DREAMS.md` (or `dreams.md`); imports under `memory/imports/<tool>/`; dreaming
//! phase reports under `memory/dreaming/<phase>/`; machine state under `memory/.dreams/`.
//!
//! Git: the workspace is its own repository, or a folder of one (the vault's, typically). A
//! workspace inside the vault commits through the vault's store (same lock, paths prefixed by
//! the folder); any other is opened where it is, and initialized as a repository when it is in
//! none (OpenClaw initializes its workspaces the same way).

use std::path::{Path, PathBuf};

use jiff::civil::Date;
use wiki_store::{Change, CommitRequest, ObjectId, Store, Target};

use crate::error::{Error, Result};

/// Files larger than this are refused (the original's limit for DREAMS.md and daily notes).
pub const MAX_FILE_BYTES: u64 = wiki_cli::read::MEMORY_NOTES.bytes;

/// The curated files, in the order a session start loads them.
pub const CURATED_FILES: [&str; 2] = ["MEMORY.md", "memory.md"];
/// The diary, in lookup order.
pub const DREAMS_FILES: [&str; 2] = ["DREAMS.md", "dreams.md"];

/// What a memory file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// `MEMORY.md` / `memory.md`.
    Curated,
    /// `memory/…/YYYY-MM-DD(-slug).md`.
    Daily,
    /// `memory/imports/<tool>/…`.
    Import,
    /// `memory/dreaming/<phase>/…`.
    DreamReport,
    /// Any other `memory/**/*.md`.
    Other,
}

impl FileKind {
    /// The label used in status output.
    pub fn label(self) -> &'static str {
        match self {
            FileKind::Curated => "curated",
            FileKind::Daily => "daily",
            FileKind::Import => "import",
            FileKind::DreamReport => "dream-report",
            FileKind::Other => "other",
        }
    }
}

/// An agent workspace.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace directory (absolute).
    pub root: PathBuf,
}

/// Where the workspace is, given `--workspace` and the agent.
pub fn locate(flag: Option<&Path>, agent: Option<&str>) -> Result<Workspace> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::Runtime(format!("cannot read the current directory: {e}")))?;
    if let Some(dir) = flag {
        return Ok(Workspace::new(wiki_cli::absolutize(dir, &cwd)));
    }
    if let Some(dir) = std::env::var_os("WIKI_MEMORY_DIR").filter(|d| !d.is_empty()) {
        return Ok(Workspace::new(wiki_cli::absolutize(Path::new(&dir), &cwd)));
    }
    Ok(Workspace::new(crate::config::load(agent)?.workspace))
}

/// The kind of a workspace-relative path.
pub fn kind_of(path: &str) -> FileKind {
    if CURATED_FILES.contains(&path) {
        FileKind::Curated
    } else if path.starts_with("memory/imports/") {
        FileKind::Import
    } else if path.starts_with("memory/dreaming/") {
        FileKind::DreamReport
    } else if note_day(path).is_some() {
        FileKind::Daily
    } else {
        FileKind::Other
    }
}

/// The day of a daily note: `memory/…/YYYY-MM-DD.md` or `…/YYYY-MM-DD-<slug>.md` (imports,
/// dreaming reports and machine state excluded; invalid calendar dates are not days).
pub fn note_day(path: &str) -> Option<Date> {
    if !path.starts_with("memory/")
        || path.starts_with("memory/imports/")
        || path.starts_with("memory/dreaming/")
        || path.split('/').any(|c| c.starts_with('.'))
    {
        return None;
    }
    let base = path.rsplit('/').next()?.strip_suffix(".md")?;
    day_prefix(base)
}

/// `YYYY-MM-DD` at the start of a file stem, followed by nothing or `-<slug>`.
pub fn day_prefix(stem: &str) -> Option<Date> {
    let date = stem.get(..10)?;
    let rest = &stem[10..];
    if !(rest.is_empty() || (rest.starts_with('-') && rest.len() > 1)) {
        return None;
    }
    let b = date.as_bytes();
    if !(b[4] == b'-' && b[7] == b'-' && date.bytes().filter(u8::is_ascii_digit).count() == 8) {
        return None;
    }
    date.parse().ok()
}

impl Workspace {
    /// A workspace at `root`.
    pub fn new(root: PathBuf) -> Workspace {
        // The canonical path when it exists (`--workspace .` prints as the directory it is).
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        Workspace { root }
    }

    /// The absolute path of a workspace-relative path.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Whether the workspace directory exists.
    pub fn exists(&self) -> bool {
        self.root.is_dir()
    }

    /// The memory files (`MEMORY.md`, `memory.md`, `memory/**/*.md`; dot folders such as
    /// `memory/.dreams/` excluded), workspace-relative, sorted — the memory corpus's listing.
    pub fn memory_files(&self) -> Vec<String> {
        wiki_search::sources::memory_files(&self.root)
            .into_iter()
            .map(|(rel, _)| rel)
            .collect()
    }

    /// Daily notes as `(day, path)`, sorted by day then path.
    pub fn daily_notes(&self) -> Vec<(Date, String)> {
        let mut out: Vec<(Date, String)> = self
            .memory_files()
            .into_iter()
            .filter_map(|p| note_day(&p).map(|d| (d, p)))
            .collect();
        out.sort();
        out
    }

    /// The first existing file of `names` (workspace-relative), else the first name.
    pub fn existing_or_first(&self, names: &[&'static str]) -> &'static str {
        names
            .iter()
            .copied()
            .find(|n| std::fs::symlink_metadata(self.path(n)).is_ok())
            .unwrap_or(names[0])
    }

    /// Read a workspace file as UTF-8 text: `None` when it does not exist; an error naming the
    /// file when it is not a regular file, larger than [`MAX_FILE_BYTES`] or not UTF-8.
    pub fn read(&self, rel: &str) -> Result<Option<String>> {
        read_text(&self.path(rel), rel)
    }
}

/// Read `abs` (shown as `shown` in errors) as bounded UTF-8 text; `None` when missing.
pub fn read_text(abs: &Path, shown: &str) -> Result<Option<String>> {
    let meta = match std::fs::metadata(abs) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(abs, e)),
    };
    if !meta.is_file() {
        return Err(Error::Invalid(format!("{shown}: not a regular file")));
    }
    let bytes = match wiki_cli::read::read_bounded(abs, wiki_cli::read::MEMORY_NOTES) {
        Ok(b) => b,
        Err(e) if wiki_cli::read::Limit::is_too_large(&e) => {
            return Err(Error::Invalid(format!("{shown}: {e}")));
        }
        Err(e) => return Err(Error::io(abs, e)),
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        Error::Invalid(format!("{shown}:{line}: not UTF-8 text"))
    })
}

/// Where workspace commits go: a store and the workspace's folder inside it.
pub struct Repo {
    /// The store (the vault's, when the workspace is a folder of the vault).
    pub store: Store,
    /// The workspace's path inside the store's vault folder (`""` or `"ws/"`).
    pub prefix: String,
    /// Whether a repository was initialized for the workspace.
    pub initialized: bool,
}

impl Workspace {
    /// The repository of the workspace: the vault's when `vault` contains the workspace and is
    /// in a repository, else the workspace's own (initialized when there is none).
    pub fn repo(&self, vault: Option<&Path>) -> Result<Repo> {
        std::fs::create_dir_all(&self.root).map_err(|e| Error::io(&self.root, e))?;
        let root = std::fs::canonicalize(&self.root).map_err(|e| Error::io(&self.root, e))?;
        if let Some(vault) = vault.and_then(|v| std::fs::canonicalize(v).ok())
            && let Ok(rel) = root.strip_prefix(&vault)
            && let Ok(store) = Store::open(&vault)
        {
            let mut prefix = String::new();
            for c in rel.components() {
                prefix.push_str(&c.as_os_str().to_string_lossy());
                prefix.push('/');
            }
            return Ok(Repo {
                store,
                prefix,
                initialized: false,
            });
        }
        let (store, initialized) = Store::open_or_init(&root)?;
        Ok(Repo {
            store,
            prefix: String::new(),
            initialized,
        })
    }
}

/// One file a command writes (`None` deletes it), workspace-relative.
pub type FileWrite = (String, Option<Vec<u8>>);

impl Repo {
    /// Commit `writes` (workspace-relative) on the checked-out branch with `subject` and
    /// `trailers`; `None` when nothing changed. Work tree and index follow the commit.
    pub fn commit(
        &self,
        writes: &[FileWrite],
        subject: &str,
        trailers: &[(String, String)],
    ) -> Result<Option<ObjectId>> {
        let changes: Vec<Change> = writes
            .iter()
            .map(|(path, content)| Change {
                path: format!("{}{path}", self.prefix),
                content: content.clone(),
                blob: None,
            })
            .collect();
        let mut req = CommitRequest::new(Target::Head, &changes, subject);
        req.trailers = trailers.to_vec();
        let outcome = self.store.commit(&req)?;
        if let Some(err) = outcome.pack_error {
            wiki_cli::warn(&wiki_cli::program_name(), &format!("warning: {err}"));
        }
        Ok(outcome.commit)
    }

    /// The committed content of a workspace file at `HEAD` (`None`: not committed).
    pub fn committed(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        match self
            .store
            .read_file("HEAD", &format!("{}{rel}", self.prefix))
        {
            Ok(v) => Ok(v),
            Err(e) if self.store.branch_tip("HEAD").ok().flatten().is_none() => {
                let _ = e;
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_days() {
        assert_eq!(kind_of("MEMORY.md"), FileKind::Curated);
        assert_eq!(kind_of("memory/2025-11-27.md"), FileKind::Daily);
        assert_eq!(kind_of("memory/2025/2025-11-27-trip.md"), FileKind::Daily);
        assert_eq!(
            kind_of("memory/imports/codex/2025-11-27.md"),
            FileKind::Import
        );
        assert_eq!(
            kind_of("memory/dreaming/rem/2025-11-27.md"),
            FileKind::DreamReport
        );
        assert_eq!(kind_of("memory/notes.md"), FileKind::Other);
        assert_eq!(kind_of("memory/2025-02-30.md"), FileKind::Other);
        assert_eq!(kind_of("memory/2025-11-27x.md"), FileKind::Other);
        assert_eq!(kind_of("memory/2025-11-27-.md"), FileKind::Other);
        assert_eq!(
            note_day("memory/2025-11-27-vendor-pitch.md"),
            Some(jiff::civil::date(2025, 11, 27))
        );
    }
}
