//! The plugin's wiki tools: `wiki_status`, `wiki_search`, `wiki_get`, `wiki_apply`, `wiki_lint`.

use serde_json::{Map, Value as Json, json};
use wiki_apply::ops;
use wiki_apply::session::{self, BatchOptions, LineOp, Session};
use wiki_cli::config::{SearchBackend, SearchCorpus};
use wiki_search::cmd::Backend;
use wiki_search::resident::{Found, SearchRequest};
use wiki_search::{Corpus, Mode, Ranking};

use super::{Outcome, Params, Reply, State, ToolSpec};

/// The wiki tools, in `tools/list` order.
pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "wiki_status",
            title: "Wiki status",
            description: "Show the wiki vault's mode, page counts, git state (branch, agent, \
                          uncommitted edits), compiled files, search index and warnings.",
            read_only: true,
            schema: status_schema,
            call: status,
        },
        ToolSpec {
            name: "wiki_search",
            title: "Search the wiki",
            description: "Search wiki pages (and, with corpus memory or all, the agent's \
                          memory files) for a question, a name or an identifier. Returns ranked \
                          results with path, snippet and the matching claim; read a result with \
                          wiki_get.",
            read_only: true,
            schema: search_schema,
            call: search,
        },
        ToolSpec {
            name: "wiki_get",
            title: "Read a wiki page",
            description: "Read a wiki page by claim id, path, file name or page id, as a window \
                          of its body lines (fromLine, lineCount). Falls back to a memory file \
                          when the corpus allows it.",
            read_only: true,
            schema: get_schema,
            call: get,
        },
        ToolSpec {
            name: "wiki_apply",
            title: "Change the wiki",
            description: "Apply one narrow mutation to the wiki as one git commit naming the \
                          agent: create_synthesis (title, body, sourceIds), update_metadata \
                          (lookup), add_claim, update_claim, add_evidence, supersede_claim, \
                          add_relationship, add_question / resolve_question, add_contradiction / \
                          resolve_contradiction. The vault is compiled in the same commit.",
            read_only: false,
            schema: apply_schema,
            call: apply,
        },
        ToolSpec {
            name: "wiki_lint",
            title: "Lint the wiki",
            description: "Compile and lint the wiki (structure, provenance, links, \
                          contradictions, open questions, quality), write reports/lint.md and \
                          commit. Run it after updates.",
            read_only: false,
            schema: lint_schema,
            call: lint,
        },
    ]
}

fn empty_schema() -> Json {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn status_schema() -> Json {
    empty_schema()
}

fn lint_schema() -> Json {
    empty_schema()
}

pub(crate) const MODES: [&str; 5] = [
    "auto",
    "find-person",
    "route-question",
    "source-evidence",
    "raw-claim",
];

/// The `corpus` and `backend` properties shared by the search and get tools.
pub(crate) fn corpus_property(default_note: &str) -> Json {
    json!({"type": "string", "enum": ["wiki", "memory", "all"],
           "description": format!("wiki pages, memory files, or both. Default: {default_note}.")})
}

fn backend_property() -> Json {
    json!({"type": "string", "enum": ["shared", "local"],
           "description": "shared: memory files are read when the corpus asks for them; local: \
                           never. Default: search.backend of the config (shared)."})
}

fn search_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to look for."},
            "maxResults": {"type": "integer", "minimum": 1, "default": 10,
                           "description": "At most this many results."},
            "mode": {"type": "string", "enum": MODES, "default": "auto",
                     "description": "Ranking mode: auto, find-person (people by name, alias, \
                                     handle), route-question (who to ask), source-evidence \
                                     (sources and evidence), raw-claim (claims)."},
            "corpus": corpus_property("search.corpus of the config (wiki)"),
            "backend": backend_property(),
            "ranking": {"type": "string", "enum": ["bm25f", "reference"], "default": "bm25f",
                        "description": "bm25f, or the original plugin's scoring (reference)."},
            "minScore": {"type": "number", "minimum": 0, "maximum": 1,
                         "description": "Memory results scoring below this are dropped \
                                         (default: memorySearch.query.minScore, else 0.35)."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn get_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "lookup": {"type": "string", "minLength": 1,
                       "description": "Claim id, relative path, file name or page id."},
            "fromLine": {"type": "integer", "minimum": 1, "default": 1,
                         "description": "First body line (the blank line after the \
                                         frontmatter is line 1)."},
            "lineCount": {"type": "integer", "minimum": 1, "default": 200,
                          "description": "Number of lines."},
            "corpus": corpus_property("search.corpus of the config (wiki)"),
            "backend": backend_property()
        },
        "required": ["lookup"],
        "additionalProperties": false
    })
}

/// The operation schema of `wiki apply` as one object schema: `op` (every operation and alias)
/// and the union of the operations' fields, with the schema's definitions. Which fields an
/// operation takes is checked as `wiki apply` checks it.
fn apply_schema() -> Json {
    let full: Json = serde_json::from_str(wiki_apply::OPERATION_SCHEMA).unwrap_or_default();
    let defs = full.get("$defs").cloned().unwrap_or_else(|| json!({}));
    let mut names: Vec<Json> = Vec::new();
    let mut fields: Map<String, Json> = Map::new();
    let variants = full.get("oneOf").and_then(Json::as_array).cloned();
    for variant in variants.unwrap_or_default() {
        let Some(name) = variant
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| r.rsplit('/').next())
        else {
            continue;
        };
        let props = defs[name]["properties"].as_object().cloned();
        for (key, schema) in props.unwrap_or_default() {
            if key == "op" {
                let values = schema
                    .get("enum")
                    .cloned()
                    .or_else(|| schema.get("const").map(|c| Json::Array(vec![c.clone()])));
                for v in values
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if !names.contains(&v) {
                        names.push(v);
                    }
                }
                continue;
            }
            merge_field(&mut fields, key, schema);
        }
    }
    let mut properties = Map::new();
    properties.insert(
        "op".into(),
        json!({"type": "string", "enum": names, "description": "The operation."}),
    );
    properties.extend(fields);
    json!({
        "type": "object",
        "properties": properties,
        "required": ["op"],
        "additionalProperties": false,
        "$defs": defs
    })
}

/// Add `schema` for `key`; a field several operations define differently accepts any of them.
fn merge_field(fields: &mut Map<String, Json>, key: String, schema: Json) {
    match fields.get_mut(&key) {
        None => {
            fields.insert(key, schema);
        }
        Some(existing) if *existing == schema => {}
        Some(existing) => {
            let known = existing
                .get("anyOf")
                .and_then(Json::as_array)
                .is_some_and(|a| a.contains(&schema));
            if known {
                return;
            }
            if let Some(list) = existing.get_mut("anyOf").and_then(Json::as_array_mut) {
                list.push(schema);
            } else {
                *existing = json!({"anyOf": [existing.clone(), schema]});
            }
        }
    }
}

fn status(state: &mut State, _p: &Params<'_>) -> Outcome {
    let status = wiki_status::status::collect(&state.global).map_err(|e| e.to_string())?;
    let text = wiki_status::text::status_text(&status);
    Ok(Reply::new(text.trim_end(), &status))
}

/// The config's `search.backend` and `search.corpus` (the tools' defaults, as the plugin's).
fn search_defaults() -> Result<(Backend, Corpus), String> {
    let cfg = wiki_cli::config::load().map_err(|e| e.to_string())?;
    let backend = match cfg.settings.search.backend {
        SearchBackend::Shared => Backend::Shared,
        SearchBackend::Local => Backend::Local,
    };
    let corpus = match cfg.settings.search.corpus {
        SearchCorpus::Wiki => Corpus::Wiki,
        SearchCorpus::Memory => Corpus::Memory,
        SearchCorpus::All => Corpus::All,
    };
    Ok((backend, corpus))
}

pub(crate) fn backend_error(s: &str) -> String {
    format!("Invalid backend: {s}. Expected one of: shared, local")
}

pub(crate) fn corpus_error(s: &str) -> String {
    format!("Invalid corpus: {s}. Expected one of: wiki, memory, all")
}

fn search(state: &mut State, p: &Params<'_>) -> Outcome {
    let (backend, corpus) = search_defaults()?;
    let req = SearchRequest {
        query: p.required("query")?.to_string(),
        mode: p.choice("mode", Mode::Auto, |_| {
            "wiki search --mode must be one of: auto, find-person, route-question, \
             source-evidence, raw-claim."
                .to_string()
        })?,
        corpus: p.choice("corpus", corpus, corpus_error)?,
        backend: p.choice("backend", backend, backend_error)?,
        max_results: p.count("maxResults", 10)?,
        ranking: p.choice("ranking", Ranking::Bm25f, |s| {
            format!("Invalid ranking: {s}. Expected one of: bm25f, reference")
        })?,
        min_score: min_score(p)?,
    };
    search_reply(state, &req, "No wiki or memory results.")
}

/// `minScore`: a number from 0 to 1 (the CLI's `--min-score` check).
pub(crate) fn min_score(p: &Params<'_>) -> Result<Option<f64>, String> {
    match p.number("minScore")? {
        None => Ok(None),
        Some(v) => wiki_search::cmd::parse_min_score(&v.to_string()).map(Some),
    }
}

/// Run a search and render it (`empty`: the text when nothing matches).
pub(crate) fn search_reply(state: &mut State, req: &SearchRequest, empty: &str) -> Outcome {
    let (_, want_memory) = wiki_search::cmd::corpora(req.corpus, req.backend);
    let workspace = if want_memory {
        let ws = state.memory_workspace()?;
        require_workspace(&ws)?;
        ws.root
    } else {
        std::path::PathBuf::new()
    };
    let hits = state
        .search
        .search(&state.global, &workspace, req)
        .map_err(|e| e.to_string())?;
    let text = if hits.is_empty() {
        empty.to_string()
    } else {
        wiki_search::cmd::search::render_text(&hits)
            .trim_end()
            .to_string()
    };
    Ok(Reply::new(text, json!({ "results": hits })))
}

/// The error of a missing memory workspace (`wiki memory`'s message).
pub(crate) fn require_workspace(ws: &wiki_memory::workspace::Workspace) -> Result<(), String> {
    if ws.exists() {
        return Ok(());
    }
    Err(format!(
        "{}: no memory workspace here (start `wiki mcp` with --workspace DIR or set the agent's \
         workspace in the OpenClaw config)",
        ws.root.display()
    ))
}

fn get(state: &mut State, p: &Params<'_>) -> Outcome {
    let (backend, corpus) = search_defaults()?;
    let lookup = p.required("lookup")?;
    let from = p.count("fromLine", 1)?;
    let lines = p.count("lineCount", 200)?;
    let corpus = p.choice("corpus", corpus, corpus_error)?;
    let backend = p.choice("backend", backend, backend_error)?;
    let (wiki, memory) = wiki_search::cmd::corpora(corpus, backend);
    get_reply(state, lookup, from, lines, wiki, memory)
}

/// Look `lookup` up in the wiki (when `wiki`), then among the memory files (when `memory`).
pub(crate) fn get_reply(
    state: &mut State,
    lookup: &str,
    from: usize,
    lines: usize,
    wiki: bool,
    memory: bool,
) -> Outcome {
    let mut found = None;
    if wiki {
        match state
            .search
            .get(&state.global, lookup, from, lines)
            .map_err(|e| e.to_string())?
        {
            Found::Page(result) => found = Some(*result),
            Found::Broken(error) => return Err(error.to_string()),
            Found::Nothing => {}
        }
    }
    if found.is_none() && memory {
        let ws = state.memory_workspace()?;
        let key = wiki_search::get::lookup_key(lookup);
        found = wiki_search::get::memory_result(&ws.root, &key, from, lines);
    }
    Ok(match found {
        Some(result) => {
            let mut structured = Map::from_iter([("found".to_string(), Json::Bool(true))]);
            if let Ok(Json::Object(fields)) = serde_json::to_value(&result) {
                structured.extend(fields);
            }
            Reply {
                text: result.content,
                structured,
            }
        }
        None => Reply::new(
            format!("Wiki page not found: {lookup}"),
            json!({"found": false}),
        ),
    })
}

fn apply(state: &mut State, p: &Params<'_>) -> Outcome {
    let op = ops::parse_op(&Json::Object(p.object().clone()))?;
    let session = Session::open(&state.global).map_err(|e| e.to_string())?;
    let compiler = wiki_apply::cmd::compiler(false, false).map_err(|e| e.to_string())?;
    let now = wiki_cli::iso_millis(state.global.now().map_err(|e| e.to_string())?);
    let outcome = session::apply_batch(
        &session,
        &[LineOp { line: 1, op }],
        &BatchOptions {
            origin: None,
            now,
            dry_run: false,
            compiler: compiler.as_ref(),
            trace: false,
        },
    )
    .map_err(|e| e.to_string())?;
    let Some(result) = outcome.results.first() else {
        return Err("wiki_apply: the operation returned no result".into());
    };
    let n = outcome.compiled.len();
    let refreshed = if n > 0 {
        format!("Refreshed {n} index file{}.", if n == 1 { "" } else { "s" })
    } else {
        "Indexes unchanged.".to_string()
    };
    let text = format!(
        "{} {} via {}. {refreshed}",
        if result.changed {
            "Updated"
        } else {
            "No changes for"
        },
        result.page_path,
        result.op.as_str()
    );
    Ok(Reply::new(
        text,
        json!({
            "changed": result.changed,
            "operation": result.op.as_str(),
            "pagePath": result.page_path,
            "pageId": result.page_id,
            "commit": outcome.commit.map(|c| c.to_string()),
            "agent": session.agent,
            "branch": session.branch,
            "compiled": outcome.compiled,
        }),
    ))
}

fn lint(state: &mut State, _p: &Params<'_>) -> Outcome {
    use wiki_lint::diagnostic::Category;
    let run = wiki_lint::cmd::lint::lint_vault(&state.global).map_err(|e| e.to_string())?;
    let report = wiki_lint::report::REPORT_PATH;
    let count = |c: Category| run.diagnostics.iter().filter(|d| d.category == c).count();
    let text = if run.diagnostics.is_empty() {
        "No wiki lint issues.".to_string()
    } else {
        [
            format!(
                "Issues: {} total ({} errors, {} warnings)",
                run.diagnostics.len(),
                run.counts.errors,
                run.counts.warnings
            ),
            format!("Contradictions: {}", count(Category::Contradictions)),
            format!("Open questions: {}", count(Category::OpenQuestions)),
            format!("Provenance gaps: {}", count(Category::Provenance)),
            format!("Report: {report}"),
        ]
        .join("\n")
    };
    let structured = wiki_lint::cmd::lint::result_json(&run, None, report.to_string());
    Ok(Reply::new(text, structured))
}
