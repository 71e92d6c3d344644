//! `wiki history`: the commits that changed a page or a claim, with what changed.
//!
//! A lookup is a page path or id (resolved like `wiki get`) or a claim id (`claim:` prefix
//! optional). Pages are followed along the first-parent history of the target branch by path;
//! claims are followed by id on the pages that hold them now, and each entry says how the claim's
//! text, status, confidence, evidence, validity and `updatedAt` changed in that commit (a claim
//! that only moved within its page has no entry). Commits without a
//! `Wiki-Op` trailer (made by hand with git, or recorded by the store as human edits) are
//! included and marked `manual`.
//!
//! A page or claim that no longer exists at the tip (deleted, rolled back, renamed away) is
//! looked for in the past: the first-parent history is walked back to the newest commit whose
//! parent held it, and its history is followed from there. Renames are followed too: when a
//! page (by id) or a claim appears on a path in a commit that removed it from another path, the
//! entry says `renamed` (pages) or `moved` (claims) with `previousPath`, and the older history
//! of that path follows.

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
    /// A claim id and the pages that hold it now (or last held it).
    Claim {
        /// The claim id.
        id: String,
        /// Pages holding the claim at the branch tip; when no page holds it any more, the pages
        /// that held it last.
        pages: Vec<String>,
        /// Whether `pages` hold the claim at the tip (`false`: it was deleted).
        current: bool,
    },
}

/// How many renames or moves one history follows (a guard against cycles of renames).
const MAX_FOLLOW: usize = 64;

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
    /// `added`, `modified` or `deleted` (the page, or the claim on it); `renamed` (a page that
    /// came from `previousPath`) or `moved` (a claim that came from the page `previousPath`).
    pub change: &'static str,
    /// Where a renamed page or a moved claim was before this commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_path: Option<String>,
    /// The claim id, for claim history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    /// Operations of this commit on this page (from the trailers).
    pub ops: Vec<RecordedOp>,
    /// Claim fields that changed (claim history only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<FieldChange>,
}

/// Resolve a lookup at the branch tip: a page first (path/id tiers), then a claim id; then, when
/// neither exists any more, the newest commit whose parent held a page with that id (or path)
/// or that claim.
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
    if !pages.is_empty() {
        return Ok(Subject::Claim {
            id,
            pages,
            current: true,
        });
    }
    let key = crate::edit::normalize_lookup_key(lookup);
    let page_key = (!is_claim_syntax).then_some(key.as_str());
    if let Some(subject) = find_in_past(session, page_key, &id)? {
        return Ok(subject);
    }
    // A path that never held a page (or whose page the walk could not read): its path history.
    if let Some(key) = page_key
        && wiki_vault::is_page_path(key)
    {
        return Ok(Subject::Page(key.to_string()));
    }
    Err(Error::Invalid(format!(
        "no page or claim matches {lookup}, now or in the history of {}",
        session.branch.as_deref().unwrap_or("HEAD")
    )))
}

/// Walk the first-parent history back from the tip to the newest commit whose parent had a page
/// with id or path `page_key`, or pages holding claim `claim_id`, among the pages the commit
/// changed (the commit that deleted, renamed or rolled them back).
fn find_in_past(
    session: &Session,
    page_key: Option<&str>,
    claim_id: &str,
) -> Result<Option<Subject>> {
    let Some(rev) = session.rev()? else {
        return Ok(None);
    };
    let mut current = Some(session.store.resolve(&rev)?);
    while let Some(commit) = current {
        let info = session.store.commit_info(commit)?;
        let Some(parent) = info.parents.first().map(|p| p.to_string()) else {
            break;
        };
        let mut claim_pages = Vec::new();
        for path in info
            .changed_paths
            .iter()
            .filter(|p| wiki_vault::is_page_path(p))
        {
            if page_key == Some(path.as_str()) {
                return Ok(Some(Subject::Page(path.clone())));
            }
            let Some(fm) = frontmatter_naming(session, &parent, path, &[page_key, Some(claim_id)])?
            else {
                continue;
            };
            if page_key.is_some() && model::opt_string(fm.get("id")).as_deref() == page_key {
                return Ok(Some(Subject::Page(path.clone())));
            }
            if claim_of(&fm, claim_id).is_some() {
                claim_pages.push(path.clone());
            }
        }
        if !claim_pages.is_empty() {
            return Ok(Some(Subject::Claim {
                id: claim_id.to_string(),
                pages: claim_pages,
                current: false,
            }));
        }
        current = info.parents.first().copied();
    }
    Ok(None)
}

/// The frontmatter of `path` at `rev`, when the file exists there and its text names one of
/// `needles` (a cheap test before parsing).
fn frontmatter_naming(
    session: &Session,
    rev: &str,
    path: &str,
    needles: &[Option<&str>],
) -> Result<Option<yaml_serde::Mapping>> {
    let Some(bytes) = session.store.read_file(rev, path)? else {
        return Ok(None);
    };
    let named = needles
        .iter()
        .flatten()
        .any(|n| !n.is_empty() && memchr::memmem::find(&bytes, n.as_bytes()).is_some());
    if !named {
        return Ok(None);
    }
    Ok(page::parse_page(path, &bytes).ok().map(|p| p.frontmatter))
}

/// The page a commit took a page or claim from: another page it changed that held it (`holds`)
/// before the commit and does not after. For following renames and moves.
fn moved_from(
    session: &Session,
    commit: &str,
    path: &str,
    needle: &str,
    holds: &dyn Fn(&yaml_serde::Mapping) -> bool,
) -> Result<Option<(String, String)>> {
    let info = session.store.commit_info(session.store.resolve(commit)?)?;
    let Some(parent) = info.parents.first().map(|p| p.to_string()) else {
        return Ok(None);
    };
    for other in &info.changed_paths {
        if other == path || !wiki_vault::is_page_path(other) {
            continue;
        }
        let held_before = frontmatter_naming(session, &parent, other, &[Some(needle)])?
            .is_some_and(|fm| holds(&fm));
        if held_before
            && !frontmatter_naming(session, commit, other, &[Some(needle)])?
                .is_some_and(|fm| holds(&fm))
        {
            return Ok(Some((other.clone(), parent)));
        }
    }
    Ok(None)
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
        previous_path: None,
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
            let mut out = page_entries(session, &session.store.history(&rev, path)?, path)?;
            // Follow renames: the oldest entry added the page on this path, taking it (by id)
            // from another path.
            for _ in 0..MAX_FOLLOW {
                let Some(oldest) = out.last_mut().filter(|e| e.change == "added") else {
                    break;
                };
                let Some(page_id) = page_id_at(session, &oldest.commit, &oldest.page_path)? else {
                    break;
                };
                let holds = |fm: &yaml_serde::Mapping| {
                    model::opt_string(fm.get("id")).as_deref() == Some(page_id.as_str())
                };
                let Some((former, parent)) = moved_from(
                    session,
                    &oldest.commit.clone(),
                    &oldest.page_path.clone(),
                    &page_id,
                    &holds,
                )?
                else {
                    break;
                };
                oldest.change = "renamed";
                oldest.previous_path = Some(former.clone());
                let older = session.store.history(&parent, &former)?;
                out.extend(page_entries(session, &older, &former)?);
            }
            Ok(out)
        }
        Subject::Claim { id, pages, .. } => {
            let paths: Vec<&str> = pages.iter().map(String::as_str).collect();
            // One walk for every page holding the claim.
            let walks = session.store.history_of_paths(&rev, &paths)?;
            let mut queue: Vec<(String, Vec<(usize, CommitInfo)>)> =
                pages.iter().cloned().zip(walks).collect();
            queue.reverse();
            let mut out: Vec<(usize, Entry)> = Vec::new();
            let mut followed = 0;
            let mut walked = pages.clone();
            while let Some((path, commits)) = queue.pop() {
                let mut entries = claim_entries(session, &path, id, commits)?;
                // Follow moves: the oldest entry added the claim to this page, taking it from
                // another page (a renamed page, or a claim moved by hand).
                if let Some((position, oldest)) = entries.first_mut()
                    && oldest.change == "added"
                    && followed < MAX_FOLLOW
                    && let Some((former, parent)) =
                        moved_from(session, &oldest.commit, &path, id, &|fm| {
                            claim_of(fm, id).is_some()
                        })?
                {
                    followed += 1;
                    oldest.change = "moved";
                    oldest.previous_path = Some(former.clone());
                    // A page walked already (it holds the claim now too) is not listed twice.
                    if walked.contains(&former) {
                        out.extend(entries);
                        continue;
                    }
                    walked.push(former.clone());
                    let base = *position + 1;
                    let older = session.store.history_of_paths(&parent, &[&former])?;
                    let older = older
                        .into_iter()
                        .flatten()
                        .map(|(at, info)| (base + at, info))
                        .collect();
                    queue.push((former, older));
                }
                out.extend(entries);
            }
            // Newest first along the walk (commit times can go back and forth: rebases, clocks,
            // pinned tool times).
            Ok(stable_newest_first(out))
        }
    }
}

/// The page id of `path` at `commit` (for following its renames).
fn page_id_at(session: &Session, commit: &str, path: &str) -> Result<Option<String>> {
    let Some(bytes) = session.store.read_file(commit, path)? else {
        return Ok(None);
    };
    Ok(page::parse_page(path, &bytes)
        .ok()
        .and_then(|p| model::opt_string(p.frontmatter.get("id")))
        .filter(|id| !id.trim().is_empty()))
}

/// The entries of page `path` for `commits` (newest first), each marked added, modified or
/// deleted.
fn page_entries(session: &Session, commits: &[CommitInfo], path: &str) -> Result<Vec<Entry>> {
    let mut out = Vec::with_capacity(commits.len());
    for info in commits {
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

/// The entries of claim `id` on page `path`, for the commits that changed the page (newest
/// first, with their positions along the walk): collected oldest first, only the commits that
/// changed the claim.
fn claim_entries(
    session: &Session,
    path: &str,
    id: &str,
    mut commits: Vec<(usize, CommitInfo)>,
) -> Result<Vec<(usize, Entry)>> {
    commits.reverse(); // oldest first: each version is read once
    let mut out = Vec::new();
    let mut prev: Option<Claim> = None;
    let mut prev_commit = None;
    for (position, info) in &commits {
        // The parent's version equals the previous entry's unless the first parent is not that
        // commit (the page came back after a gap); re-read then.
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
        // What the entry reports, not the claim's line: a claim that only moved within its page
        // did not change.
        if !changes.is_empty() {
            let mut e = entry(info, path, change);
            e.claim_id = Some(id.to_string());
            e.ops
                .retain(|op| op.claims.is_empty() || op.claims.iter().any(|c| c == id));
            e.changes = changes;
            out.push((*position, e));
        }
        prev = now;
    }
    Ok(out)
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
    if let Some(p) = &e.previous_path {
        s.push_str(&format!(" (from {p})"));
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
