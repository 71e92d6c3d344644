//! The texts of `wiki status` and `wiki doctor` (reference §12, then the git-native lines).

use serde::Serialize;
use wiki_store::human_size;

use crate::findings::Finding;
use crate::status::Status;

/// The status text: the original's lines, the git-native ones, then the warnings.
pub fn status_text(s: &Status) -> String {
    let mut out = String::new();
    let mut line = |l: String| {
        out.push_str(&l);
        out.push('\n');
    };
    line(format!("Wiki vault mode: {}", s.vault_mode));
    line(match (&s.agent_id, s.vault_scope) {
        (Some(id), "agent") => format!("Vault scope: agent ({id})"),
        _ => format!("Vault scope: {}", s.vault_scope),
    });
    let ready = if s.vault_exists { "ready" } else { "missing" };
    line(format!("Vault: {ready} ({})", s.vault_path));
    line(format!("Render mode: {}", s.render_mode));
    let cli = if s.obsidian_cli.available {
        "available"
    } else {
        "missing"
    };
    let requested = if s.obsidian_cli.requested {
        " (requested)"
    } else {
        ""
    };
    line(format!("Obsidian CLI: {cli}{requested}"));
    let bridge = if s.bridge.enabled {
        "enabled"
    } else {
        "disabled"
    };
    let artifacts = s
        .bridge_public_artifact_count
        .map(|n| format!(" ({n} exported artifact(s))"))
        .unwrap_or_default();
    line(format!("Bridge: {bridge}{artifacts}"));
    line(if s.unsafe_local.allow_private_memory_core_access {
        format!(
            "Unsafe local: enabled ({} paths)",
            s.unsafe_local.path_count
        )
    } else {
        "Unsafe local: disabled".into()
    });
    let p = &s.page_counts;
    line(format!(
        "Pages: {} sources, {} entities, {} concepts, {} syntheses, {} reports",
        p.source, p.entity, p.concept, p.synthesis, p.report
    ));
    let c = &s.source_counts;
    line(format!(
        "Source provenance: {} native, {} bridge, {} bridge-events, {} unsafe-local, {} other",
        c.native, c.bridge, c.bridge_events, c.unsafe_local, c.other
    ));
    for l in git_lines(s) {
        line(l);
    }
    if !s.warnings.is_empty() {
        line(String::new());
        line("Warnings:".into());
        for w in &s.warnings {
            line(format!("- {}", w.message));
        }
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Branch, uncommitted changes, compiled files, search index and server, repository size.
fn git_lines(s: &Status) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(g) = &s.git {
        let branch = g.branch.as_deref().unwrap_or("(detached HEAD)");
        let target = match (&s.agent_id, &g.target_branch) {
            (Some(id), Some(t)) if g.branch.as_deref() != Some(t.as_str()) => {
                let created = if g.target_exists {
                    ""
                } else {
                    ", created by its first write"
                };
                format!(" (agent {id} reads and writes {t}{created})")
            }
            (Some(id), _) => format!(" (agent {id})"),
            _ => String::new(),
        };
        out.push(format!("Branch: {branch}{target}"));
        out.push(match g.uncommitted_count {
            0 => "Uncommitted changes: none".into(),
            n => format!("Uncommitted changes: {}", plural(n, "file", "files")),
        });
    }
    if let Some(c) = &s.compiled {
        out.push(if c.current {
            "Compiled files: current".into()
        } else {
            format!(
                "Compiled files: stale ({} would change)",
                plural(c.stale_files.len(), "file", "files")
            )
        });
        let caches = if c.caches_current { "current" } else { "stale" };
        out.push(format!("Compiled digest: {caches}"));
    }
    if let Some(i) = &s.search_index {
        out.push(match i.state {
            "fresh" => format!("Search index: fresh ({})", plural(i.files, "file", "files")),
            "stale" => format!(
                "Search index: stale ({} of {} changed; the next search refreshes them)",
                i.changed,
                plural(i.files, "file", "files")
            ),
            _ => "Search index: missing (the first search builds it)".into(),
        });
    }
    if let Some(srv) = &s.search_server {
        let state = if srv.running {
            "running"
        } else {
            "not running"
        };
        out.push(format!("Search server: {state}"));
    }
    if let Some(g) = &s.git {
        out.push(format!(
            "Repository: {} ({}, {}; {}, {})",
            human_size(g.loose_bytes + g.pack_bytes),
            plural(g.loose_objects as usize, "loose object", "loose objects"),
            human_size(g.loose_bytes),
            plural(g.packs as usize, "pack", "packs"),
            human_size(g.pack_bytes)
        ));
    }
    out
}

/// A suggested fix as printed in the doctor's JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Fix {
    /// The warning's code.
    pub code: String,
    /// What to do.
    pub message: String,
}

/// `wiki doctor --json`: `{healthy, warningCount, status, fixes}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Doctor<'a> {
    /// No warnings.
    pub healthy: bool,
    /// How many.
    pub warning_count: usize,
    /// The status.
    pub status: &'a Status,
    /// One fix per warning.
    pub fixes: Vec<Fix>,
}

/// The doctor report of a status.
pub fn doctor(status: &Status) -> Doctor<'_> {
    Doctor {
        healthy: status.warnings.is_empty(),
        warning_count: status.warnings.len(),
        status,
        fixes: fixes(&status.warnings),
    }
}

/// The fix of each finding.
pub fn fixes(findings: &[Finding]) -> Vec<Fix> {
    findings
        .iter()
        .map(|f| Fix {
            code: f.code.clone(),
            message: f.fix.clone(),
        })
        .collect()
}

/// The doctor text: verdict, blank line, status text, then the suggested fixes.
pub fn doctor_text(body: &str, findings: &[Finding]) -> String {
    let mut out = if findings.is_empty() {
        "Wiki doctor: healthy\n\n".to_string()
    } else {
        format!("Wiki doctor: {} issue(s) found\n\n", findings.len())
    };
    out.push_str(body);
    if !findings.is_empty() {
        out.push_str("\nSuggested fixes:\n");
        for f in findings {
            out.push_str(&format!("- {}\n", f.fix));
        }
    }
    out
}
