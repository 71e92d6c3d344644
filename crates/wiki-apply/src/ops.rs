//! The operations of `wiki apply`: their JSON wire format, parsed and validated.
//!
//! `wiki apply` reads **one JSON object per line** on stdin; each object is one operation,
//! selected by its `op` field. Field names are camelCase, unknown fields are rejected, strings are
//! trimmed, and blank strings count as absent. Confidences are numbers in `[0, 1]`; numeric
//! strings such as `"0.7"` are accepted and coerced. The JSON Schema of every operation is
//! `crates/wiki-apply/schema/operation.schema.json`; `docs/apply.md`-style documentation lives in
//! the crate docs ([`crate`]).
//!
//! | `op` (aliases) | required | optional |
//! | --- | --- | --- |
//! | `create_synthesis` (`synthesis`) | `title`, `body`, `sourceIds` | `claims`, `contradictions`, `questions`, `confidence`, `status` |
//! | `update_metadata` (`metadata`) | `lookup` | `sourceIds`, `claims`, `contradictions`, `questions`, `confidence` (`null` clears), `status` |
//! | `add_claim` | `page`, `claimId`, `text` | `status`, `confidence`, `evidence`, `validFrom` |
//! | `update_claim` | `claimId`, one of `text` / `status` / `confidence` | `page`, `confidence: null` clears |
//! | `add_evidence` | `claimId`, `evidence` (object or list) | `page` |
//! | `supersede_claim` | `claimId`, `newClaimId`, `text` | `page`, `status`, `confidence`, `evidence`, `validFrom` |
//! | `add_relationship` | `page`, `targetId` or `targetPath` | `targetTitle`, `kind`, `weight`, `confidence`, `evidenceKind`, `privacyTier`, `note` |
//! | `add_question` / `resolve_question` | `page`, `question` | |
//! | `add_contradiction` / `resolve_contradiction` | `page`, `contradiction` | |
//!
//! `page` and `lookup` resolve like `wiki get` (reference §8 step 2): exact path, path + `.md`,
//! path without `.md`, file name without `.md`, then page id. Claim ids accept an optional
//! `claim:` prefix; when `page` is omitted the claim is looked up in the whole vault and must be
//! on exactly one page.
//!
//! Validation messages of the two original operations are those of the original plugin
//! (reference §9), e.g. `wiki mutation requires title for create_synthesis.` and
//! `claims[0].confidence must be a number between 0 and 1; received 1.5.`; the other operations
//! follow the same patterns (`wiki mutation requires claimId for update_claim.`).

use serde_json::{Map, Value as Json};
use wiki_parse::model::{Claim, Evidence, Relationship};

/// The kind of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Create or refresh a synthesis page (`synthesis`).
    CreateSynthesis,
    /// Update the metadata of an existing page (`metadata`).
    UpdateMetadata,
    /// Add a claim to a page.
    AddClaim,
    /// Change a claim's text, status or confidence.
    UpdateClaim,
    /// Add evidence to a claim.
    AddEvidence,
    /// Replace a claim by a new one, keeping the old one as `superseded`.
    SupersedeClaim,
    /// Add (or refresh) a relationship of a page.
    AddRelationship,
    /// Add an open question to a page.
    AddQuestion,
    /// Remove an open question from a page.
    ResolveQuestion,
    /// Add a contradiction note to a page.
    AddContradiction,
    /// Remove a contradiction note from a page.
    ResolveContradiction,
}

impl OpKind {
    /// Every operation, in documentation order.
    pub const ALL: [OpKind; 11] = [
        OpKind::CreateSynthesis,
        OpKind::UpdateMetadata,
        OpKind::AddClaim,
        OpKind::UpdateClaim,
        OpKind::AddEvidence,
        OpKind::SupersedeClaim,
        OpKind::AddRelationship,
        OpKind::AddQuestion,
        OpKind::ResolveQuestion,
        OpKind::AddContradiction,
        OpKind::ResolveContradiction,
    ];

    /// The canonical name (`Wiki-Op` trailer value, `op` of result records).
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::CreateSynthesis => "create_synthesis",
            OpKind::UpdateMetadata => "update_metadata",
            OpKind::AddClaim => "add_claim",
            OpKind::UpdateClaim => "update_claim",
            OpKind::AddEvidence => "add_evidence",
            OpKind::SupersedeClaim => "supersede_claim",
            OpKind::AddRelationship => "add_relationship",
            OpKind::AddQuestion => "add_question",
            OpKind::ResolveQuestion => "resolve_question",
            OpKind::AddContradiction => "add_contradiction",
            OpKind::ResolveContradiction => "resolve_contradiction",
        }
    }

    /// Parse a name or alias (`synthesis`, `metadata`).
    pub fn parse(name: &str) -> Option<OpKind> {
        match name {
            "synthesis" => Some(OpKind::CreateSynthesis),
            "metadata" => Some(OpKind::UpdateMetadata),
            _ => OpKind::ALL.into_iter().find(|k| k.as_str() == name),
        }
    }

    /// The fields an operation accepts (besides `op`).
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            OpKind::CreateSynthesis => &[
                "title",
                "body",
                "sourceIds",
                "claims",
                "contradictions",
                "questions",
                "confidence",
                "status",
            ],
            OpKind::UpdateMetadata => &[
                "lookup",
                "sourceIds",
                "claims",
                "contradictions",
                "questions",
                "confidence",
                "status",
            ],
            OpKind::AddClaim => &[
                "page",
                "claimId",
                "text",
                "status",
                "confidence",
                "evidence",
                "validFrom",
            ],
            OpKind::UpdateClaim => &["page", "claimId", "text", "status", "confidence"],
            OpKind::AddEvidence => &["page", "claimId", "evidence"],
            OpKind::SupersedeClaim => &[
                "page",
                "claimId",
                "newClaimId",
                "text",
                "status",
                "confidence",
                "evidence",
                "validFrom",
            ],
            OpKind::AddRelationship => &[
                "page",
                "targetId",
                "targetPath",
                "targetTitle",
                "kind",
                "weight",
                "confidence",
                "evidenceKind",
                "privacyTier",
                "note",
            ],
            OpKind::AddQuestion | OpKind::ResolveQuestion => &["page", "question"],
            OpKind::AddContradiction | OpKind::ResolveContradiction => &["page", "contradiction"],
        }
    }
}

/// The message for a missing or unknown `op` (the original's wording, listing every operation).
pub fn unknown_op_message() -> String {
    let names: Vec<String> = OpKind::ALL
        .iter()
        .map(|k| format!("\"{}\"", k.as_str()))
        .collect();
    format!(
        "wiki mutation op must be one of {} (aliases: \"synthesis\", \"metadata\").",
        names.join(", ")
    )
}

/// A confidence change: set a value or clear it (`null`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConfidenceChange {
    /// Set to this value (in `[0, 1]`).
    Set(f64),
    /// Remove the key.
    Clear,
}

/// `create_synthesis`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateSynthesis {
    /// Page title (trimmed); the page is `syntheses/<slug>.md`.
    pub title: String,
    /// Summary text written into the `## Summary` managed block (trimmed).
    pub body: String,
    /// Source ids (at least one).
    pub source_ids: Vec<String>,
    /// Claims replacing the page's claims, when given.
    pub claims: Option<Vec<Claim>>,
    /// Contradiction notes (trimmed, de-duplicated), when given.
    pub contradictions: Option<Vec<String>>,
    /// Open questions (trimmed, de-duplicated), when given.
    pub questions: Option<Vec<String>>,
    /// Page confidence.
    pub confidence: Option<f64>,
    /// Page status (default `active`).
    pub status: Option<String>,
}

/// `update_metadata`.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateMetadata {
    /// Page lookup (path or id).
    pub lookup: String,
    /// Replacement source ids.
    pub source_ids: Option<Vec<String>>,
    /// Replacement claims (an empty list removes the key).
    pub claims: Option<Vec<Claim>>,
    /// Replacement contradictions (empty removes the key).
    pub contradictions: Option<Vec<String>>,
    /// Replacement questions (empty removes the key).
    pub questions: Option<Vec<String>>,
    /// Confidence change.
    pub confidence: Option<ConfidenceChange>,
    /// New status.
    pub status: Option<String>,
}

/// `add_claim`.
#[derive(Debug, Clone, PartialEq)]
pub struct AddClaim {
    /// Page lookup.
    pub page: String,
    /// The claim (its `id` is always set).
    pub claim: Claim,
}

/// `update_claim`.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateClaim {
    /// Page lookup (optional: found by claim id).
    pub page: Option<String>,
    /// The claim id.
    pub claim_id: String,
    /// New text.
    pub text: Option<String>,
    /// New status.
    pub status: Option<String>,
    /// Confidence change.
    pub confidence: Option<ConfidenceChange>,
}

/// `add_evidence`.
#[derive(Debug, Clone, PartialEq)]
pub struct AddEvidence {
    /// Page lookup (optional).
    pub page: Option<String>,
    /// The claim id.
    pub claim_id: String,
    /// Evidence entries to add (at least one).
    pub evidence: Vec<Evidence>,
}

/// `supersede_claim`.
#[derive(Debug, Clone, PartialEq)]
pub struct SupersedeClaim {
    /// Page lookup (optional).
    pub page: Option<String>,
    /// The claim being replaced.
    pub claim_id: String,
    /// The replacement claim (id = `newClaimId`, `supersedes` = `claimId`).
    pub new_claim: Claim,
}

/// `add_relationship`.
#[derive(Debug, Clone, PartialEq)]
pub struct AddRelationship {
    /// Page lookup.
    pub page: String,
    /// The relationship (target id or path always set).
    pub relationship: Relationship,
}

/// `add_question`, `resolve_question`, `add_contradiction`, `resolve_contradiction`.
#[derive(Debug, Clone, PartialEq)]
pub struct PageNote {
    /// Page lookup.
    pub page: String,
    /// The question or contradiction text (trimmed).
    pub text: String,
}

/// A validated operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// See [`CreateSynthesis`].
    CreateSynthesis(CreateSynthesis),
    /// See [`UpdateMetadata`].
    UpdateMetadata(UpdateMetadata),
    /// See [`AddClaim`].
    AddClaim(AddClaim),
    /// See [`UpdateClaim`].
    UpdateClaim(UpdateClaim),
    /// See [`AddEvidence`].
    AddEvidence(AddEvidence),
    /// See [`SupersedeClaim`].
    SupersedeClaim(SupersedeClaim),
    /// See [`AddRelationship`].
    AddRelationship(AddRelationship),
    /// See [`PageNote`].
    AddQuestion(PageNote),
    /// See [`PageNote`].
    ResolveQuestion(PageNote),
    /// See [`PageNote`].
    AddContradiction(PageNote),
    /// See [`PageNote`].
    ResolveContradiction(PageNote),
}

impl Op {
    /// The operation's kind.
    pub fn kind(&self) -> OpKind {
        match self {
            Op::CreateSynthesis(_) => OpKind::CreateSynthesis,
            Op::UpdateMetadata(_) => OpKind::UpdateMetadata,
            Op::AddClaim(_) => OpKind::AddClaim,
            Op::UpdateClaim(_) => OpKind::UpdateClaim,
            Op::AddEvidence(_) => OpKind::AddEvidence,
            Op::SupersedeClaim(_) => OpKind::SupersedeClaim,
            Op::AddRelationship(_) => OpKind::AddRelationship,
            Op::AddQuestion(_) => OpKind::AddQuestion,
            Op::ResolveQuestion(_) => OpKind::ResolveQuestion,
            Op::AddContradiction(_) => OpKind::AddContradiction,
            Op::ResolveContradiction(_) => OpKind::ResolveContradiction,
        }
    }

    /// Source ids this operation refers to (`sourceIds`, evidence `sourceId`), first occurrence
    /// order, without duplicates: the `Wiki-Source` trailers.
    pub fn source_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |s: &str| {
            if !out.iter().any(|o| o == s) {
                out.push(s.to_string());
            }
        };
        let claims_sources = |claims: &[Claim], push: &mut dyn FnMut(&str)| {
            for c in claims {
                for e in &c.evidence {
                    if let Some(s) = &e.source_id {
                        push(s);
                    }
                }
            }
        };
        match self {
            Op::CreateSynthesis(o) => {
                o.source_ids.iter().for_each(|s| push(s));
                claims_sources(o.claims.as_deref().unwrap_or_default(), &mut push);
            }
            Op::UpdateMetadata(o) => {
                o.source_ids.iter().flatten().for_each(|s| push(s));
                claims_sources(o.claims.as_deref().unwrap_or_default(), &mut push);
            }
            Op::AddClaim(o) => claims_sources(std::slice::from_ref(&o.claim), &mut push),
            Op::SupersedeClaim(o) => claims_sources(std::slice::from_ref(&o.new_claim), &mut push),
            Op::AddEvidence(o) => o
                .evidence
                .iter()
                .filter_map(|e| e.source_id.as_deref())
                .for_each(&mut push),
            _ => {}
        }
        out
    }
}

/// Parse and validate one JSON Lines operation. The error is the message without location.
pub fn parse_line(line: &str) -> Result<Op, String> {
    let value: Json = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
    parse_op(&value)
}

/// Parse and validate one operation object.
pub fn parse_op(value: &Json) -> Result<Op, String> {
    let Json::Object(map) = value else {
        return Err(format!(
            "each line must be a JSON object (one operation); received {}.",
            show(value)
        ));
    };
    let kind = match map.get("op") {
        Some(Json::String(s)) => OpKind::parse(s.trim()).ok_or_else(unknown_op_message)?,
        _ => return Err(unknown_op_message()),
    };
    let allowed = kind.fields();
    for key in map.keys() {
        if key != "op" && !allowed.contains(&key.as_str()) {
            return Err(format!(
                "unknown field \"{key}\" for {} (allowed: op, {}).",
                kind.as_str(),
                allowed.join(", ")
            ));
        }
    }
    let o = Obj::new(map, "");
    page_op(kind, &o, map)
}

/// `field` of `kind`, which the operation requires.
fn required(kind: OpKind, field: &str, v: Option<String>) -> Result<String, String> {
    v.ok_or_else(|| format!("wiki mutation requires {field} for {}.", kind.as_str()))
}

/// An operation on a page's fields (those on one claim: [`claim_op`]).
fn page_op(kind: OpKind, o: &Obj<'_>, map: &Map<String, Json>) -> Result<Op, String> {
    let required = |field: &str, v: Option<String>| required(kind, field, v);
    Ok(match kind {
        OpKind::CreateSynthesis => {
            let title = required("title", o.string("title")?)?;
            let body = required("body", o.string("body")?)?;
            let source_ids = o.list("sourceIds")?.unwrap_or_default();
            if source_ids.is_empty() {
                return Err(
                    "wiki mutation requires at least one sourceId for create_synthesis.".into(),
                );
            }
            Op::CreateSynthesis(CreateSynthesis {
                title,
                body,
                source_ids,
                claims: o.claims("claims")?,
                contradictions: o.list("contradictions")?.map(dedupe),
                questions: o.list("questions")?.map(dedupe),
                confidence: o.page_confidence("confidence")?,
                status: o.string("status")?,
            })
        }
        OpKind::UpdateMetadata => {
            let lookup = required("lookup", o.string("lookup")?)?;
            let confidence = match map.get("confidence") {
                Some(Json::Null) => Some(ConfidenceChange::Clear),
                _ => o.page_confidence("confidence")?.map(ConfidenceChange::Set),
            };
            Op::UpdateMetadata(UpdateMetadata {
                lookup,
                source_ids: o.list("sourceIds")?,
                claims: o.claims("claims")?,
                contradictions: o.list("contradictions")?.map(dedupe),
                questions: o.list("questions")?.map(dedupe),
                confidence,
                status: o.string("status")?,
            })
        }
        OpKind::AddRelationship => {
            let page = required("page", o.string("page")?)?;
            let relationship = Relationship {
                target_id: o.string("targetId")?,
                target_path: o.string("targetPath")?,
                target_title: o.string("targetTitle")?,
                kind: o.string("kind")?,
                weight: o.weight("weight")?,
                confidence: o.unit("confidence")?,
                evidence_kind: o.string("evidenceKind")?,
                privacy_tier: o.string("privacyTier")?,
                note: o.string("note")?,
                updated_at: None,
            };
            if relationship.target_id.is_none() && relationship.target_path.is_none() {
                return Err(
                    "wiki mutation requires targetId or targetPath for add_relationship.".into(),
                );
            }
            Op::AddRelationship(AddRelationship { page, relationship })
        }
        OpKind::AddQuestion
        | OpKind::ResolveQuestion
        | OpKind::AddContradiction
        | OpKind::ResolveContradiction => {
            let field = if matches!(kind, OpKind::AddQuestion | OpKind::ResolveQuestion) {
                "question"
            } else {
                "contradiction"
            };
            let note = PageNote {
                page: required("page", o.string("page")?)?,
                text: required(field, o.string(field)?)?,
            };
            match kind {
                OpKind::AddQuestion => Op::AddQuestion(note),
                OpKind::ResolveQuestion => Op::ResolveQuestion(note),
                OpKind::AddContradiction => Op::AddContradiction(note),
                _ => Op::ResolveContradiction(note),
            }
        }
        OpKind::AddClaim | OpKind::UpdateClaim | OpKind::AddEvidence | OpKind::SupersedeClaim => {
            return claim_op(kind, o, map);
        }
    })
}

/// An operation on one claim (the others: [`page_op`]).
fn claim_op(kind: OpKind, o: &Obj<'_>, map: &Map<String, Json>) -> Result<Op, String> {
    let required = |field: &str, v: Option<String>| required(kind, field, v);
    Ok(match kind {
        OpKind::AddClaim => {
            let page = required("page", o.string("page")?)?;
            let id = required("claimId", o.claim_id("claimId")?)?;
            let text = required("text", o.string("text")?)?;
            Op::AddClaim(AddClaim {
                page,
                claim: Claim {
                    id: Some(id),
                    text,
                    status: o.string("status")?,
                    confidence: o.unit("confidence")?,
                    evidence: o.evidence_list("evidence")?,
                    valid_from: o.timestamp("validFrom")?,
                    ..Claim::default()
                },
            })
        }
        OpKind::UpdateClaim => {
            let claim_id = required("claimId", o.claim_id("claimId")?)?;
            let confidence = match map.get("confidence") {
                Some(Json::Null) => Some(ConfidenceChange::Clear),
                _ => o.unit("confidence")?.map(ConfidenceChange::Set),
            };
            let op = UpdateClaim {
                page: o.string("page")?,
                claim_id,
                text: o.string("text")?,
                status: o.string("status")?,
                confidence,
            };
            if op.text.is_none() && op.status.is_none() && op.confidence.is_none() {
                return Err(
                    "wiki mutation requires text, status or confidence for update_claim.".into(),
                );
            }
            Op::UpdateClaim(op)
        }
        OpKind::AddEvidence => {
            let claim_id = required("claimId", o.claim_id("claimId")?)?;
            let evidence = o.evidence_list("evidence")?;
            if evidence.is_empty() {
                return Err(
                    "wiki mutation requires at least one evidence entry for add_evidence.".into(),
                );
            }
            Op::AddEvidence(AddEvidence {
                page: o.string("page")?,
                claim_id,
                evidence,
            })
        }
        OpKind::SupersedeClaim => {
            let claim_id = required("claimId", o.claim_id("claimId")?)?;
            let new_id = required("newClaimId", o.claim_id("newClaimId")?)?;
            if new_id == claim_id {
                return Err("newClaimId must differ from claimId.".into());
            }
            let text = required("text", o.string("text")?)?;
            Op::SupersedeClaim(SupersedeClaim {
                page: o.string("page")?,
                new_claim: Claim {
                    id: Some(new_id),
                    text,
                    status: o.string("status")?,
                    confidence: o.unit("confidence")?,
                    evidence: o.evidence_list("evidence")?,
                    valid_from: o.timestamp("validFrom")?,
                    supersedes: Some(claim_id.clone()),
                    ..Claim::default()
                },
                claim_id,
            })
        }
        _ => return page_op(kind, o, map),
    })
}

/// Remove duplicates, keeping the first occurrence.
pub fn dedupe(items: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Strip an optional `claim:` prefix (case-insensitive) and surrounding whitespace.
pub fn normalize_claim_id(raw: &str) -> String {
    let t = raw.trim();
    let stripped = if t.len() >= 6 && t[..6].eq_ignore_ascii_case("claim:") {
        &t[6..]
    } else {
        t
    };
    stripped.trim().to_string()
}

/// How a value is shown after `received` in messages: numbers as written, strings quoted.
fn show(v: &Json) -> String {
    match v {
        Json::String(s) => match strict_number(s) {
            Some(n) => format_number(n),
            None => Json::String(s.clone()).to_string(),
        },
        other => other.to_string(),
    }
}

/// Format a number like JavaScript does (`1`, `1.5`).
fn format_number(n: f64) -> String {
    format!("{n}")
}

/// A strictly numeric string (`0.7`, `.5`, `1e-1`, `-2`): finite numbers only.
fn strict_number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty()
        || !t
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
    {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn json_number(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Json::String(s) => strict_number(s),
        _ => None,
    }
}

/// A JSON object being read, with the path prefix used in messages (`claims[0].`).
struct Obj<'a> {
    map: &'a Map<String, Json>,
    prefix: String,
}

impl<'a> Obj<'a> {
    fn new(map: &'a Map<String, Json>, prefix: &str) -> Obj<'a> {
        Obj {
            map,
            prefix: prefix.to_string(),
        }
    }

    fn name(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// An optional string: absent, `null` or blank → `None`; trimmed otherwise.
    fn string(&self, key: &str) -> Result<Option<String>, String> {
        match self.map.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => {
                let t = s.trim();
                Ok((!t.is_empty()).then(|| t.to_string()))
            }
            Some(other) => Err(format!(
                "{} must be a string; received {}.",
                self.name(key),
                show(other)
            )),
        }
    }

    fn claim_id(&self, key: &str) -> Result<Option<String>, String> {
        Ok(self
            .string(key)?
            .map(|s| normalize_claim_id(&s))
            .filter(|s| !s.is_empty()))
    }

    /// A single-or-list of strings: a string → `[trimmed]` (blank → absent); a list → its
    /// trimmed non-blank items (non-strings are errors).
    fn list(&self, key: &str) -> Result<Option<Vec<String>>, String> {
        match self.map.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => {
                let t = s.trim();
                Ok((!t.is_empty()).then(|| vec![t.to_string()]))
            }
            Some(Json::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Json::String(s) if !s.trim().is_empty() => out.push(s.trim().to_string()),
                        Json::String(_) | Json::Null => {}
                        other => {
                            return Err(format!(
                                "{}[{i}] must be a string; received {}.",
                                self.name(key),
                                show(other)
                            ));
                        }
                    }
                }
                Ok(Some(out))
            }
            Some(other) => Err(format!(
                "{} must be a list of strings; received {}.",
                self.name(key),
                show(other)
            )),
        }
    }

    /// An optional number (numeric strings accepted, blank = absent) that must satisfy `accept`;
    /// otherwise `<field> must be <requirement>; received <value>.`
    fn checked_number(
        &self,
        key: &str,
        accept: fn(f64) -> bool,
        requirement: &str,
    ) -> Result<Option<f64>, String> {
        match self.map.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
            Some(v) => match json_number(v) {
                Some(n) if accept(n) => Ok(Some(n)),
                _ => Err(format!(
                    "{} must be {requirement}; received {}.",
                    self.name(key),
                    show(v)
                )),
            },
        }
    }

    /// The page-level confidence (original wording: `confidence must be a finite number`).
    fn page_confidence(&self, key: &str) -> Result<Option<f64>, String> {
        self.checked_number(
            key,
            |n| (0.0..=1.0).contains(&n),
            "a finite number between 0 and 1",
        )
    }

    /// A claim/evidence/relationship confidence in `[0, 1]`.
    fn unit(&self, key: &str) -> Result<Option<f64>, String> {
        self.checked_number(
            key,
            |n| (0.0..=1.0).contains(&n),
            "a number between 0 and 1",
        )
    }

    /// A finite weight ≥ 0.
    fn weight(&self, key: &str) -> Result<Option<f64>, String> {
        self.checked_number(key, |n| n >= 0.0, "a finite number >= 0")
    }

    /// An optional timestamp (RFC 3339 / ISO 8601 date or date-time).
    fn timestamp(&self, key: &str) -> Result<Option<String>, String> {
        let Some(s) = self.string(key)? else {
            return Ok(None);
        };
        if wiki_parse::time::parse_timestamp_ms(&s).is_none() {
            return Err(format!(
                "{} must be an ISO 8601 timestamp (e.g. 2026-04-05T12:00:00.000Z); received {}.",
                self.name(key),
                Json::String(s)
            ));
        }
        Ok(Some(s))
    }

    /// A line range: a string, or a number (kept as its text).
    fn lines(&self, key: &str) -> Result<Option<String>, String> {
        match self.map.get(key) {
            Some(Json::Number(n)) => Ok(Some(n.to_string())),
            _ => self.string(key),
        }
    }

    fn child(&self, value: &'a Json, name: String) -> Result<Obj<'a>, String> {
        match value {
            Json::Object(m) => Ok(Obj::new(m, &format!("{name}."))),
            other => Err(format!(
                "{name} must be an object; received {}.",
                show(other)
            )),
        }
    }

    fn check_keys(&self, name: &str, allowed: &[&str]) -> Result<(), String> {
        for key in self.map.keys() {
            if !allowed.contains(&key.as_str()) {
                return Err(format!(
                    "unknown field \"{key}\" in {name} (allowed: {}).",
                    allowed.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// `claims`: a list of claim objects.
    fn claims(&self, key: &str) -> Result<Option<Vec<Claim>>, String> {
        let items = match self.map.get(key) {
            None | Some(Json::Null) => return Ok(None),
            Some(Json::Array(items)) => items,
            Some(other) => {
                return Err(format!(
                    "{} must be a list of claim objects; received {}.",
                    self.name(key),
                    show(other)
                ));
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let name = format!("{}[{i}]", self.name(key));
            let c = self.child(item, name.clone())?;
            c.check_keys(&name, CLAIM_FIELDS)?;
            let Some(text) = c.string("text")? else {
                return Err(format!("{name}.text must be a non-empty string."));
            };
            out.push(Claim {
                id: c.claim_id("id")?,
                text,
                status: c.string("status")?,
                confidence: c.unit("confidence")?,
                evidence: c.evidence_list("evidence")?,
                updated_at: c.timestamp("updatedAt")?,
                valid_from: c.timestamp("validFrom")?,
                valid_until: c.timestamp("validUntil")?,
                supersedes: c.claim_id("supersedes")?,
                superseded_by: c.claim_id("supersededBy")?,
                line: None,
            });
        }
        Ok(Some(out))
    }

    /// `evidence`: one evidence object or a list of them.
    fn evidence_list(&self, key: &str) -> Result<Vec<Evidence>, String> {
        let items: Vec<(&Json, String)> = match self.map.get(key) {
            None | Some(Json::Null) => return Ok(Vec::new()),
            Some(Json::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (v, format!("{}[{i}]", self.name(key))))
                .collect(),
            Some(v @ Json::Object(_)) => vec![(v, self.name(key))],
            Some(other) => {
                return Err(format!(
                    "{} must be an evidence object or a list of them; received {}.",
                    self.name(key),
                    show(other)
                ));
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (value, name) in items {
            let e = self.child(value, name.clone())?;
            e.check_keys(&name, EVIDENCE_FIELDS)?;
            let ev = Evidence {
                kind: e.string("kind")?,
                source_id: e.string("sourceId")?,
                path: e.string("path")?,
                lines: e.lines("lines")?,
                weight: e.weight("weight")?,
                confidence: e.unit("confidence")?,
                privacy_tier: e.string("privacyTier")?,
                note: e.string("note")?,
                updated_at: e.timestamp("updatedAt")?,
            };
            if ev == Evidence::default() {
                return Err(format!(
                    "{name} must have at least one of {}.",
                    EVIDENCE_FIELDS.join(", ")
                ));
            }
            out.push(ev);
        }
        Ok(out)
    }
}

/// Fields of a claim object.
pub const CLAIM_FIELDS: &[&str] = &[
    "id",
    "text",
    "status",
    "confidence",
    "evidence",
    "updatedAt",
    "validFrom",
    "validUntil",
    "supersedes",
    "supersededBy",
];

/// Fields of an evidence object (the original's order).
pub const EVIDENCE_FIELDS: &[&str] = &[
    "kind",
    "sourceId",
    "path",
    "lines",
    "weight",
    "confidence",
    "privacyTier",
    "note",
    "updatedAt",
];

/// Fields of a relationship object (the order they are written in).
pub const RELATIONSHIP_FIELDS: &[&str] = &[
    "targetId",
    "targetPath",
    "targetTitle",
    "kind",
    "weight",
    "confidence",
    "evidenceKind",
    "privacyTier",
    "note",
    "updatedAt",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: &str) -> String {
        parse_line(line).unwrap_err()
    }

    #[test]
    fn original_messages() {
        assert_eq!(
            err(r#"{"op":"create_synthesis","body":"b","sourceIds":["s"]}"#),
            "wiki mutation requires title for create_synthesis."
        );
        assert_eq!(
            err(r#"{"op":"synthesis","title":"T","body":"  ","sourceIds":["s"]}"#),
            "wiki mutation requires body for create_synthesis."
        );
        assert_eq!(
            err(r#"{"op":"synthesis","title":"T","body":"b","sourceIds":[]}"#),
            "wiki mutation requires at least one sourceId for create_synthesis."
        );
        assert_eq!(
            err(r#"{"op":"metadata","lookup":" "}"#),
            "wiki mutation requires lookup for update_metadata."
        );
        assert_eq!(
            err(r#"{"op":"metadata","lookup":"a","claims":[{"text":"x","confidence":1.5}]}"#),
            "claims[0].confidence must be a number between 0 and 1; received 1.5."
        );
        let m = err(r#"{"op":"metadata","lookup":"a","confidence":"1.5"}"#);
        assert!(m.contains("confidence must be a finite number"), "{m}");
        assert!(err(r#"{"op":"delete_everything"}"#).starts_with(
            "wiki mutation op must be one of \"create_synthesis\", \"update_metadata\", "
        ));
        assert!(err(r#"{"title":"x"}"#).ends_with("(aliases: \"synthesis\", \"metadata\")."));
    }

    #[test]
    fn confidence_coercion_and_clear() {
        let Op::UpdateMetadata(m) =
            parse_line(r#"{"op":"metadata","lookup":"a","confidence":"0.7"}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(m.confidence, Some(ConfidenceChange::Set(0.7)));
        let Op::UpdateMetadata(m) =
            parse_line(r#"{"op":"metadata","lookup":"a","confidence":null}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(m.confidence, Some(ConfidenceChange::Clear));
        let Op::CreateSynthesis(s) = parse_line(
            r#"{"op":"synthesis","title":" T ","body":"b","sourceIds":"s","confidence":null,"questions":["q"," q ",""]}"#,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(s.title, "T");
        assert_eq!(s.source_ids, vec!["s"]);
        assert_eq!(s.confidence, None);
        assert_eq!(s.questions, Some(vec!["q".to_string()]));
        assert_eq!(
            err(r#"{"op":"add_claim","page":"p","claimId":"c","text":"t","confidence":"high"}"#),
            "confidence must be a number between 0 and 1; received \"high\"."
        );
    }

    #[test]
    fn claim_ops() {
        assert_eq!(
            err(r#"{"op":"add_claim","page":"p","text":"t"}"#),
            "wiki mutation requires claimId for add_claim."
        );
        assert_eq!(
            err(r#"{"op":"update_claim","claimId":"c"}"#),
            "wiki mutation requires text, status or confidence for update_claim."
        );
        assert_eq!(
            err(r#"{"op":"add_evidence","claimId":"c","evidence":[]}"#),
            "wiki mutation requires at least one evidence entry for add_evidence."
        );
        assert_eq!(
            err(r#"{"op":"add_evidence","claimId":"c","evidence":[{"sourceId":"s"},{}]}"#),
            "evidence[1] must have at least one of kind, sourceId, path, lines, weight, confidence, privacyTier, note, updatedAt."
        );
        assert_eq!(
            err(r#"{"op":"add_evidence","claimId":"c","evidence":{"weight":-1}}"#),
            "evidence.weight must be a finite number >= 0; received -1."
        );
        assert_eq!(
            err(r#"{"op":"supersede_claim","claimId":"claim:a","newClaimId":"a","text":"t"}"#),
            "newClaimId must differ from claimId."
        );
        assert_eq!(
            err(r#"{"op":"add_claim","page":"p","claimId":"c","text":"t","color":"red"}"#),
            "unknown field \"color\" for add_claim (allowed: op, page, claimId, text, status, confidence, evidence, validFrom)."
        );
        assert_eq!(
            err(r#"{"op":"add_relationship","page":"p","kind":"k"}"#),
            "wiki mutation requires targetId or targetPath for add_relationship."
        );
        assert_eq!(
            err(r#"{"op":"resolve_question","page":"p"}"#),
            "wiki mutation requires question for resolve_question."
        );
        let Op::SupersedeClaim(s) = parse_line(
            r#"{"op":"supersede_claim","claimId":"Claim:old","newClaimId":"new","text":"t","evidence":{"sourceId":"s","lines":12}}"#,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(s.claim_id, "old");
        assert_eq!(s.new_claim.supersedes.as_deref(), Some("old"));
        assert_eq!(s.new_claim.evidence[0].lines.as_deref(), Some("12"));
        assert_eq!(
            err(r#"{"op":"add_claim","page":"p","claimId":"c","text":"t","validFrom":"soon"}"#),
            "validFrom must be an ISO 8601 timestamp (e.g. 2026-04-05T12:00:00.000Z); received \"soon\"."
        );
    }

    #[test]
    fn json_errors() {
        assert!(err("{oops").starts_with("invalid JSON: "));
        assert_eq!(
            err("[1]"),
            "each line must be a JSON object (one operation); received [1]."
        );
        assert_eq!(
            err(r#"{"op":"metadata","lookup":"a","sourceIds":["a",3]}"#),
            "sourceIds[1] must be a string; received 3."
        );
        assert_eq!(
            err(
                r#"{"op":"metadata","lookup":"a","claims":[{"text":"x","evidence":[{"sourceId":"s","confidence":2}]}]}"#
            ),
            "claims[0].evidence[0].confidence must be a number between 0 and 1; received 2."
        );
    }

    #[test]
    fn schema_lists_the_same_fields() {
        let schema: Json =
            serde_json::from_str(include_str!("../schema/operation.schema.json")).unwrap();
        let defs = &schema["$defs"];
        for kind in OpKind::ALL {
            let def = match kind {
                OpKind::AddQuestion | OpKind::ResolveQuestion => "question",
                OpKind::AddContradiction | OpKind::ResolveContradiction => "contradiction",
                k => k.as_str(),
            };
            let mut props: Vec<&str> = defs[def]["properties"]
                .as_object()
                .unwrap_or_else(|| panic!("{def}"))
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "op")
                .collect();
            props.sort_unstable();
            let mut fields = kind.fields().to_vec();
            fields.sort_unstable();
            assert_eq!(props, fields, "{def}");
        }
        let mut claim: Vec<&str> = defs["claim"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        claim.sort_unstable();
        let mut expected = CLAIM_FIELDS.to_vec();
        expected.sort_unstable();
        assert_eq!(claim, expected);
        let ev: Vec<&str> = defs["evidence"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(ev, EVIDENCE_FIELDS);
    }

    #[test]
    fn sources_for_trailers() {
        let op = parse_line(
            r#"{"op":"synthesis","title":"T","body":"b","sourceIds":["s1","s2"],"claims":[{"text":"x","evidence":[{"sourceId":"s2"},{"sourceId":"s3"}]}]}"#,
        )
        .unwrap();
        assert_eq!(op.source_ids(), vec!["s1", "s2", "s3"]);
    }
}
