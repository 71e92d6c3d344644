//! The memory layer's tools (issue 34): `memory_recall`, `memory_facts`, `memory_triggers`.
//!
//! Each runs the library function of its `wiki memory` command (`cmd::recall::recall`,
//! `cmd::facts::facts`, `cmd::triggers::select`) with the command's arguments built from the
//! call's, so validation, messages and side effects are the command's: a recall records its
//! signals in `memory/.dreams/short-term-recall.json` unless `noRecord` is true. The text is the
//! command's text output; `structuredContent` holds its `--json` records.

use serde_json::{Value as Json, json};
use wiki_memory::cmd::{self, Ctx};
use wiki_memory::recall::DEFAULT_K;
use wiki_memory::retain::Kind;

use super::{Outcome, Params, Reply, State, ToolSpec};

/// The memory layer's tools, in `tools/list` order.
pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "memory_recall",
            title: "Recall memory",
            description: "Recall retained facts and daily-note passages for a query (lexical, \
                          entity, temporal and opinion signals), each citing path#L<line>. \
                          Filters: since or at (a period or a date), entity, kind. The recall \
                          is recorded as a short-term signal for dreaming, as `wiki memory \
                          recall` records it.",
            read_only: false,
            schema: recall_schema,
            call: recall,
        },
        ToolSpec {
            name: "memory_facts",
            title: "Retained facts",
            description: "List the typed facts of the daily notes' ## Retain sections (world, \
                          experience, opinion with confidence, observation; @Entity mentions), \
                          each with its day and source line, filtered by since/at, entity and \
                          kind. Malformed bullets are reported with their line.",
            read_only: true,
            schema: facts_schema,
            call: facts,
        },
        ToolSpec {
            name: "memory_triggers",
            title: "Trigger recall",
            description: "The curated MEMORY.md / USER.md entries whose <!-- trigger: … --> \
                          phrases match an incoming message: at most 3 entries (1,800 \
                          characters together), each with its source line.",
            read_only: true,
            schema: triggers_schema,
            call: triggers,
        },
    ]
}

const KINDS: [&str; 4] = ["world", "experience", "opinion", "observation"];

fn since_property() -> Json {
    json!({"type": "string", "minLength": 1,
           "description": "Only notes of this period: 30d, 2w, 12h, 3m, 1y, or a day \
                           (2025-11-01)."})
}

fn at_property() -> Json {
    json!({"type": "string", "minLength": 1,
           "description": "Only notes of this year, month or day (2025, 2025-11, 2025-11-27)."})
}

fn entity_property() -> Json {
    json!({"type": "array", "items": {"type": "string", "minLength": 1},
           "description": "Only facts mentioning one of these entities (Peter or @Peter)."})
}

fn kind_property() -> Json {
    json!({"type": "array", "items": {"type": "string", "enum": KINDS},
           "description": "Only facts of these kinds."})
}

fn recall_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string",
                      "description": "What to recall (optional with entity or kind)."},
            "k": {"type": "integer", "minimum": 1, "default": DEFAULT_K,
                  "description": "Maximum number of results."},
            "since": since_property(),
            "at": {"type": "string", "minLength": 1,
                   "description": "Only notes of this year, month or day (2025, 2025-11, \
                                   2025-11-27); not with since."},
            "entity": entity_property(),
            "kind": kind_property(),
            "noRecord": {"type": "boolean", "default": false,
                         "description": "Do not record this recall in the short-term store."}
        },
        "additionalProperties": false
    })
}

fn facts_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "since": since_property(),
            "at": at_property(),
            "entity": entity_property(),
            "kind": kind_property()
        },
        "additionalProperties": false
    })
}

fn triggers_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "message": {"type": "string", "minLength": 1,
                        "description": "The incoming message."},
            "project": {"type": "array", "items": {"type": "string", "minLength": 1},
                        "description": "Active projects: entries scoped with \
                                        <!-- project: … --> trigger only when all their \
                                        projects are active."}
        },
        "required": ["message"],
        "additionalProperties": false
    })
}

/// The memory command context of the server's vault, agent, clock and workspace.
fn ctx(state: &State) -> Result<Ctx, String> {
    Ctx::for_workspace(&state.global, state.workspace.as_deref()).map_err(|e| e.to_string())
}

fn owned(values: Vec<&str>) -> Vec<String> {
    values.into_iter().map(str::to_string).collect()
}

/// `kind` as the command's `--kind` parses it (its message on a bad value).
fn kinds(p: &Params<'_>) -> Result<Vec<Kind>, String> {
    p.strings("kind")?
        .into_iter()
        .map(cmd::facts::parse_kind)
        .collect()
}

fn recall(state: &mut State, p: &Params<'_>) -> Outcome {
    let args = cmd::recall::Args {
        query: owned(p.str("query")?.into_iter().collect()),
        k: p.count("k", DEFAULT_K)?,
        since: p.str("since")?.map(str::to_string),
        at: p.str("at")?.map(str::to_string),
        entity: owned(p.strings("entity")?),
        kind: kinds(p)?,
        no_record: p.flag("noRecord", false)?,
    };
    if args.since.is_some() && args.at.is_some() {
        return Err("memory_recall: `since` and `at` cannot be used together".into());
    }
    let results = cmd::recall::recall(&ctx(state)?, &args).map_err(|e| e.to_string())?;
    let lines: Vec<String> = results
        .iter()
        .enumerate()
        .map(|(i, r)| cmd::recall::text_line(i, r))
        .collect();
    Ok(Reply::new(
        text_or(lines, "Nothing recalled."),
        json!({"results": results}),
    ))
}

fn facts(state: &mut State, p: &Params<'_>) -> Outcome {
    let args = cmd::facts::Args {
        since: p.str("since")?.map(str::to_string),
        at: p.str("at")?.map(str::to_string),
        entity: owned(p.strings("entity")?),
        kind: kinds(p)?,
    };
    let found = cmd::facts::facts(&ctx(state)?, &args).map_err(|e| e.to_string())?;
    if !found.errors.is_empty() {
        return Err(found.errors.join("\n"));
    }
    let mut lines: Vec<String> = found.facts.iter().map(cmd::facts::text_line).collect();
    lines.extend(found.malformed.iter().map(|m| m.to_string()));
    let records: Vec<_> = found.facts.iter().map(cmd::facts::FactRecord::of).collect();
    let malformed: Vec<_> = found
        .malformed
        .iter()
        .map(cmd::facts::MalformedRecord::of)
        .collect();
    Ok(Reply::new(
        text_or(lines, "No facts."),
        json!({"facts": records, "malformed": malformed}),
    ))
}

fn triggers(state: &mut State, p: &Params<'_>) -> Outcome {
    let message = p.required("message")?;
    let projects = owned(p.strings("project")?);
    let selected =
        cmd::triggers::select(&ctx(state)?, message, &projects).map_err(|e| e.to_string())?;
    let lines: Vec<String> = selected.iter().map(|t| t.line.clone()).collect();
    let records: Vec<_> = selected
        .iter()
        .map(cmd::triggers::TriggerRecord::of)
        .collect();
    Ok(Reply::new(
        text_or(lines, "No trigger matched."),
        json!({"triggers": records}),
    ))
}

/// The lines, or `empty` when there are none.
fn text_or(lines: Vec<String>, empty: &str) -> String {
    if lines.is_empty() {
        empty.to_string()
    } else {
        lines.join("\n")
    }
}
