//! What `wiki status` warns about and how `wiki doctor` says to fix it.
//!
//! The first seven codes and their texts are the original's (reference §12), except that a fix
//! names our command (`wiki init`, not `openclaw wiki init`). The others are what a git-native
//! vault needs.

use serde::Serialize;

/// One warning: a code, a message, and the fix `wiki doctor` suggests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable code (`vault-missing`, `compiled-stale`, …).
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// What fixes it (the command to run, where there is one).
    #[serde(skip)]
    pub fix: String,
}

/// How the suggested commands address the vault: `wiki` plus the `--vault` / `--agent` flags the
/// user passed (a vault or agent found from the environment, the config or the current
/// directory is found again the same way).
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    /// `--vault DIR`, when given as a flag.
    pub vault: Option<String>,
    /// `--agent ID`, when given as a flag.
    pub agent: Option<String>,
}

impl Invocation {
    /// `wiki [--vault DIR] [--agent ID] <command>`.
    pub fn wiki(&self, command: &str) -> String {
        let mut s = "wiki".to_string();
        if let Some(v) = &self.vault {
            s.push_str(&format!(" --vault {}", shell_quote(v)));
        }
        if let Some(a) = &self.agent {
            s.push_str(&format!(" --agent {}", shell_quote(a)));
        }
        format!("{s} {command}")
    }
}

/// Quote for a POSIX shell when needed.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@,=".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn finding(code: &str, message: impl Into<String>, fix: impl Into<String>) -> Finding {
    Finding {
        code: code.into(),
        message: message.into(),
        fix: fix.into(),
    }
}

/// `vault-missing`.
pub fn vault_missing(inv: &Invocation, vault: &str) -> Finding {
    let init = match &inv.vault {
        Some(_) => format!("wiki init {}", shell_quote(vault)),
        None => "wiki init".into(),
    };
    finding(
        "vault-missing",
        "Wiki vault has not been initialized yet.",
        format!("Run `{init}` to create the vault layout."),
    )
}

/// `obsidian-cli-missing`.
pub fn obsidian_cli_missing() -> Finding {
    finding(
        "obsidian-cli-missing",
        "Obsidian CLI is enabled in config but `obsidian` is not available on PATH.",
        "Install the official Obsidian CLI or disable `obsidian.useOfficialCli`.",
    )
}

/// `bridge-disabled`.
pub fn bridge_disabled() -> Finding {
    finding(
        "bridge-disabled",
        "vaultMode is `bridge` but bridge.enabled is false.",
        "Enable `plugins.entries.memory-wiki.config.bridge.enabled` or switch vaultMode away from `bridge`.",
    )
}

/// `bridge-artifacts-missing`.
pub fn bridge_artifacts_missing() -> Finding {
    finding(
        "bridge-artifacts-missing",
        "Bridge mode is enabled but the active memory plugin is not exporting any public memory artifacts yet.",
        "Use a memory plugin that exports public artifacts, create/import memory artifacts first, or switch the wiki back to isolated mode.",
    )
}

/// `unsafe-local-disabled`.
pub fn unsafe_local_disabled() -> Finding {
    finding(
        "unsafe-local-disabled",
        "vaultMode is `unsafe-local` but private memory-core access is disabled.",
        "Enable `unsafeLocal.allowPrivateMemoryCoreAccess` or switch vaultMode away from `unsafe-local`.",
    )
}

/// `unsafe-local-paths-missing`.
pub fn unsafe_local_paths_missing() -> Finding {
    finding(
        "unsafe-local-paths-missing",
        "unsafe-local access is enabled but no private paths are configured.",
        "Add explicit `unsafeLocal.paths` entries before running unsafe-local imports.",
    )
}

/// `unsafe-local-without-mode`.
pub fn unsafe_local_without_mode() -> Finding {
    finding(
        "unsafe-local-without-mode",
        "Private memory-core access is enabled outside unsafe-local mode.",
        "Disable private memory-core access unless you explicitly want unsafe-local mode.",
    )
}

/// `not-a-git-repository`.
pub fn not_a_git_repository(vault: &str) -> Finding {
    finding(
        "not-a-git-repository",
        "The vault is not inside a git repository, so no change is recorded.",
        format!(
            "Run `wiki init {}` (it creates the repository and commits the vault).",
            shell_quote(vault)
        ),
    )
}

/// Up to five paths, then `and N more`.
pub fn some_paths(paths: &[String]) -> String {
    let mut s = paths.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > 5 {
        s.push_str(&format!(" and {} more", paths.len() - 5));
    }
    s
}

/// `uncommitted-changes`.
pub fn uncommitted_changes(vault: &str, paths: &[String]) -> Finding {
    let q = shell_quote(vault);
    finding(
        "uncommitted-changes",
        format!(
            "{} file(s) in the vault have uncommitted changes: {}.",
            paths.len(),
            some_paths(paths)
        ),
        format!(
            "Record them as a commit: `git -C {q} add -A . && git -C {q} commit -m 'Hand edits'` (or undo them with `git -C {q} restore .`)."
        ),
    )
}

/// `compiled-stale`.
pub fn compiled_stale(inv: &Invocation, files: &[String]) -> Finding {
    finding(
        "compiled-stale",
        format!(
            "Compiled files are stale: a compile would change {} file(s): {}.",
            files.len(),
            some_paths(files)
        ),
        format!("Run `{}`.", inv.wiki("compile")),
    )
}

/// `compiled-cache-stale`.
pub fn compiled_cache_stale(inv: &Invocation) -> Finding {
    finding(
        "compiled-cache-stale",
        "The compiled digest (.openclaw-wiki/cache/agent-digest.json, claims.jsonl) is missing or out of date.",
        format!("Run `{}`.", inv.wiki("compile")),
    )
}

/// `page-errors`.
pub fn page_errors(inv: &Invocation, errors: &[String]) -> Finding {
    finding(
        "page-errors",
        format!(
            "{} page(s) cannot be read or parsed: {}.",
            errors.len(),
            some_paths(errors)
        ),
        format!(
            "Fix their frontmatter (`{}` lists each problem with its line).",
            inv.wiki("lint")
        ),
    )
}

/// `loose-objects`.
pub fn loose_objects(inv: &Invocation, count: u64, size: &str) -> Finding {
    finding(
        "loose-objects",
        format!(
            "The repository holds {count} loose git objects ({size}); packing them would make it much smaller."
        ),
        format!("Run `{}`.", inv.wiki("gc")),
    )
}

/// `config-invalid` (doctor only: every other command refuses an invalid config).
pub fn config_invalid(message: &str) -> Finding {
    finding(
        "config-invalid",
        format!("The OpenClaw config is invalid: {message}"),
        "Fix or remove the key named above (`wiki config show` checks the file again).",
    )
}
