//! `wiki history`: the commits that changed a page or a claim, with what changed.
//!
//! A lookup is a page path or id (resolved like `wiki get`) or a claim id (`claim:` prefix
//! optional). Pages are followed along the first-parent history of the target branch by path;
//! claims are followed by id on the pages that hold them now, and each entry says how the claim's
//! text, status, confidence, evidence, validity and `updatedAt` changed in that commit (a claim
//! that only moved within its page has no entry). Commits without a
//! `Wiki-Op` trailer (made by hand with git, or recorded by the store as human edits) are
//! included and marked `manual`.

use serde::Serialize;
use serde_json::{Value as Json, json};
use wiki_parse::model::{self, Claim, Evidence};
use wiki_parse::page;
use wiki_store::CommitInfo;

use crate::edit::Workspace;
use crate::error::{Error, Result};
use crate::ops::normalize_claim_id;
use crate::session::{Session, trailer_sets};

/// What a lookup resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A page (vault-relative path).
    Page(String),
    /// A claim id and the pages that hold it now.
    Claim {
        /// The claim id.
        id: String,
        /// Pages holding the claim at the branch tip.
        pages: Vec<String>,
    },
}

/// One operation recorded in a commit's trailers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedOp {
    /// `Wiki-Op`.
    pub op: String,
    /// `Wiki-Page`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// `Wiki-Claim` values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<String>,
    /// `Wiki-Agent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `Wiki-Source` values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

/// One change of one claim field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    /// `text`, `status`, `confidence`, `evidence`, `validFrom`, `validUntil`, `supersedes`,
    /// `supersededBy`.
    pub field: String,
    /// Value before (`null` = absent).
    pub from: Json,
    /// Value after (`null` = absent).
    pub to: Json,
}

/// One history entry: a commit that changed the page or claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Record type (`history`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Commit id.
    pub commit: String,
    /// Author time (ISO 8601).
    pub time: String,
    /// `Name <email>` of the author.
    pub author: String,
    /// First line of the message.
    pub subject: String,
    /// `true` for commits without a `Wiki-Op` trailer (made by hand).
    pub manual: bool,
    /// The page this entry is about.
    pub page_path: String,
    /// `added`, `modified` or `deleted` (the page, or the claim on it).
    pub change: &'static str,
    /// The claim id, for claim history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    /// Operations of this commit on this page (from the trailers).
    pub ops: Vec<RecordedOp>,
    /// Claim fields that changed (claim history only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<FieldChange>,
}

/// Resolve a lookup at the branch tip: a page first (path/id tiers), then a claim id.
pub fn resolve(session: &Session, lookup: &str) -> Result<Subject> {
    let base = session.base()?;
    let files = session.files(base)?;
    let mut ws = Workspace::new(files.as_ref(), "");
    let is_claim_syntax =
        lookup.trim().len() >= 6 && lookup.trim()[..6].eq_ignore_ascii_case("claim:");
    if !is_claim_syntax && let Some(path) = ws.resolve_page(lookup)? {
        return Ok(Subject::Page(path));
    }
    let id = normalize_claim_id(lookup);
    let pages = ws.pages_with_claim(&id, |fm| claim_of(fm, &id).is_some())?;
    if pages.is_empty() {
        // A page that no longer exists at the tip: accept a plain path.
        let key = crate::edit::normalize_lookup_key(lookup);
        if !is_claim_syntax && wiki_parse::vault::is_page_path(&key) {
            return Ok(Subject::Page(key));
        }
        return Err(Error::Invalid(format!("no page or claim matches {lookup}")));
    }
    Ok(Subject::Claim { id, pages })
}

/// The normalised claim with explicit id `id`.
fn claim_of(fm: &yaml_serde::Mapping, id: &str) -> Option<Claim> {
    match fm.get("claims") {
        Some(yaml_serde::Value::Sequence(items)) => items
            .iter()
            .filter(|v| match v {
                yaml_serde::Value::Mapping(m) => {
                    model::opt_string(m.get("id")).as_deref() == Some(id)
                }
                _ => false,
            })
            .find_map(model::normalize_claim),
        _ => None,
    }
}

fn recorded_ops(info: &CommitInfo, page: &str) -> Vec<RecordedOp> {
    let mut out = Vec::new();
    for set in trailer_sets(&info.trailers) {
        let get = |k: &str| {
            set.iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.clone())
        };
        let all = |k: &str| -> Vec<String> {
            set.iter()
                .filter(|(key, _)| key.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.clone())
                .collect()
        };
        let Some(op) = get("Wiki-Op") else {
            continue;
        };
        let pages = all("Wiki-Page");
        if !pages.is_empty() && !pages.iter().any(|p| p == page) {
            continue;
        }
        out.push(RecordedOp {
            op,
            page: pages.into_iter().find(|p| p == page),
            claims: all("Wiki-Claim"),
            agent: get("Wiki-Agent"),
            sources: all("Wiki-Source"),
        });
    }
    out
}

fn is_manual(info: &CommitInfo) -> bool {
    !info
        .trailers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("Wiki-Op"))
}

fn entry(info: &CommitInfo, page: &str, change: &'static str) -> Entry {
    Entry {
        kind: "history",
        commit: info.id.to_string(),
        time: info.time_iso.clone(),
        author: format!("{} <{}>", info.author.name, info.author.email),
        subject: info.subject.clone(),
        manual: is_manual(info),
        page_path: page.to_string(),
        change,
        claim_id: None,
        ops: recorded_ops(info, page),
        changes: Vec::new(),
    }
}

/// History entries for `subject`, newest first.
pub fn history(session: &Session, subject: &Subject) -> Result<Vec<Entry>> {
    let Some(rev) = session.rev()? else {
        return Ok(Vec::new());
    };
    match subject {
        Subject::Page(path) => {
            let commits = session.store.history(&rev, path)?;
            let mut out = Vec::with_capacity(commits.len());
            for info in &commits {
                let now = session.store.read_file(&info.id.to_string(), path)?;
                let before = match info.parents.first() {
                    Some(p) => session.store.read_file(&p.to_string(), path)?,
                    None => None,
                };
                let change = match (before.is_some(), now.is_some()) {
                    (false, _) => "added",
                    (true, false) => "deleted",
                    (true, true) => "modified",
                };
                out.push(entry(info, path, change));
            }
            Ok(out)
        }
        Subject::Claim { id, pages } => {
            let paths: Vec<&str> = pages.iter().map(String::as_str).collect();
            // One walk for every page holding the claim.
            let walks = session.store.history_of_paths(&rev, &paths)?;
            let mut out: Vec<(usize, Entry)> = Vec::new();
            for (path, mut commits) in pages.iter().zip(walks) {
                commits.reverse(); // oldest first: each version is read once
                let mut prev: Option<Claim> = None;
                let mut prev_commit = None;
                for (position, info) in &commits {
                    // The parent's version equals the previous entry's unless the first parent
                    // is not that commit (the page came back after a gap); re-read then.
                    if info.parents.first() != prev_commit.as_ref() {
                        prev = match info.parents.first() {
                            Some(p) => claim_at(session, &p.to_string(), path, id)?,
                            None => None,
                        };
                    }
                    let now = claim_at(session, &info.id.to_string(), path, id)?;
                    prev_commit = Some(info.id);
                    let changes = claim_changes(prev.as_ref(), now.as_ref());
                    let change = match (&prev, &now) {
                        (None, Some(_)) => "added",
                        (Some(_), None) => "deleted",
                        _ => "modified",
                    };
                    // What the entry reports, not the claim's line: a claim that only moved
                    // within its page did not change.
                    if !changes.is_empty() {
                        let mut e = entry(info, path, change);
                        e.claim_id = Some(id.clone());
                        e.ops
                            .retain(|op| op.claims.is_empty() || op.claims.contains(id));
                        e.changes = changes;
                        out.push((*position, e));
                    }
                    prev = now;
                }
            }
            // Newest first along the walk (commit times can go back and forth: rebases, clocks,
            // pinned tool times).
            Ok(stable_newest_first(out))
        }
    }
}

/// Entries of several pages (each page's collected oldest first, with its commit's position
/// along the walk, 0 newest): newest first by position, the entries of one commit in reverse
/// order of collection.
fn stable_newest_first(mut entries: Vec<(usize, Entry)>) -> Vec<Entry> {
    entries.reverse();
    entries.sort_by_key(|(position, _)| *position);
    entries.into_iter().map(|(_, e)| e).collect()
}

fn claim_at(session: &Session, rev: &str, path: &str, id: &str) -> Result<Option<Claim>> {
    let Some(bytes) = session.store.read_file(rev, path)? else {
        return Ok(None);
    };
    Ok(page::parse_page(path, &bytes)
        .ok()
        .and_then(|p| claim_of(&p.frontmatter, id))
        .map(|mut c| {
            c.line = None;
            c
        }))
}

fn opt_json(v: &Option<String>) -> Json {
    v.as_ref().map_or(Json::Null, |s| Json::String(s.clone()))
}

fn evidence_json(e: &Evidence) -> Json {
    serde_json::to_value(e).unwrap_or(Json::Null)
}

/// The fields that differ between two versions of a claim.
pub fn claim_changes(before: Option<&Claim>, after: Option<&Claim>) -> Vec<FieldChange> {
    let empty = Claim::default();
    let b = before.unwrap_or(&empty);
    let a = after.unwrap_or(&empty);
    let mut out = Vec::new();
    let mut push = |field: &str, from: Json, to: Json| {
        if from != to {
            out.push(FieldChange {
                field: field.to_string(),
                from,
                to,
            });
        }
    };
    let text = |c: &Claim, present: bool| {
        if present {
            Json::String(c.text.clone())
        } else {
            Json::Null
        }
    };
    push("text", text(b, before.is_some()), text(a, after.is_some()));
    push("status", opt_json(&b.status), opt_json(&a.status));
    push(
        "confidence",
        b.confidence.map_or(Json::Null, |c| json!(c)),
        a.confidence.map_or(Json::Null, |c| json!(c)),
    );
    if b.evidence != a.evidence {
        out.push(FieldChange {
            field: "evidence".into(),
            from: Json::Array(b.evidence.iter().map(evidence_json).collect()),
            to: Json::Array(a.evidence.iter().map(evidence_json).collect()),
        });
    }
    let mut push = |field: &str, from: &Option<String>, to: &Option<String>| {
        if from != to {
            out.push(FieldChange {
                field: field.to_string(),
                from: opt_json(from),
                to: opt_json(to),
            });
        }
    };
    push("validFrom", &b.valid_from, &a.valid_from);
    push("validUntil", &b.valid_until, &a.valid_until);
    push("supersedes", &b.supersedes, &a.supersedes);
    push("supersededBy", &b.superseded_by, &a.superseded_by);
    push("updatedAt", &b.updated_at, &a.updated_at);
    out
}

/// Render one entry as text (used by `--format text`).
pub fn entry_text(e: &Entry) -> String {
    let short = &e.commit[..e.commit.len().min(12)];
    let mut s = format!(
        "{short} {} {}{}\n",
        e.time,
        e.subject,
        if e.manual { " [manual]" } else { "" }
    );
    s.push_str(&format!("    {} {}", e.change, e.page_path));
    if let Some(c) = &e.claim_id {
        s.push_str(&format!(" claim {c}"));
    }
    s.push('\n');
    for op in &e.ops {
        s.push_str(&format!(
            "    {}{}\n",
            op.op,
            op.agent
                .as_ref()
                .map(|a| format!(" by {a}"))
                .unwrap_or_default()
        ));
    }
    for c in &e.changes {
        let show = |v: &Json| match v {
            Json::Null => "(none)".to_string(),
            Json::String(s) => s.clone(),
            Json::Array(items) => format!(
                "{} item{}",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            ),
            other => other.to_string(),
        };
        s.push_str(&format!(
            "    {}: {} -> {}\n",
            c.field,
            show(&c.from),
            show(&c.to)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_field_changes() {
        let a = Claim {
            id: Some("c".into()),
            text: "t".into(),
            status: Some("supported".into()),
            confidence: Some(0.9),
            ..Claim::default()
        };
        let mut b = a.clone();
        b.status = Some("contested".into());
        b.confidence = None;
        b.evidence.push(Evidence {
            source_id: Some("s".into()),
            ..Evidence::default()
        });
        b.updated_at = Some("2026-04-05T12:00:00.000Z".into());
        b.line = Some(12);
        let ch = claim_changes(Some(&a), Some(&b));
        let fields: Vec<&str> = ch.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["status", "confidence", "evidence", "updatedAt"]);
        // A claim that only moved within its page did not change.
        let mut moved = a.clone();
        moved.line = Some(40);
        assert!(claim_changes(Some(&a), Some(&moved)).is_empty());
        assert_eq!(ch[1].to, Json::Null);
        let added = claim_changes(None, Some(&a));
        assert_eq!(added[0].field, "text");
        assert_eq!(added[0].from, Json::Null);
    }
}
