//! The memory tools of OpenClaw's memory core, with the wiki reachable through their `corpus`
//! (reference §7.9): `memory_search`, `memory_get`.

use serde_json::{Value as Json, json};
use wiki_search::cmd::Backend;
use wiki_search::resident::SearchRequest;
use wiki_search::{Corpus, Mode, Ranking};

use super::wiki::{
    corpus_error, corpus_property, get_reply, min_score, require_workspace, search_reply,
};
use super::{Outcome, Params, Reply, State, ToolSpec};

/// The memory tools, in `tools/list` order.
pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "memory_search",
            title: "Search memory",
            description: "Search the agent's memory files (MEMORY.md, daily notes memory/*.md) \
                          — with corpus all, the wiki too (prefer corpus=all). Results cite \
                          path#Lstart-Lend; read them with memory_get.",
            read_only: true,
            schema: search_schema,
            call: search,
        },
        ToolSpec {
            name: "memory_get",
            title: "Read memory",
            description: "Read a memory file or a range of its lines (path, or a citation \
                          path#L12-L20); with corpus wiki or all, a wiki page by path.",
            read_only: true,
            schema: get_schema,
            call: get,
        },
    ]
}

fn search_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to look for."},
            "maxResults": {"type": "integer", "minimum": 1,
                           "default": wiki_memory::search::DEFAULT_MAX_RESULTS,
                           "description": "At most this many results."},
            "minScore": {"type": "number", "minimum": 0, "maximum": 1,
                         "description": "Drop memory results scoring below this (default: \
                                         memorySearch.query.minScore, else 0.35)."},
            "corpus": corpus_property("memory")
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn get_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1,
                     "description": "Workspace-relative path (MEMORY.md, memory/2026-01-05.md), \
                                     optionally with #L12 or #L12-L20; with corpus wiki, a page \
                                     path or id."},
            "from": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
            "lines": {"type": "integer", "minimum": 1, "description": "Number of lines."},
            "corpus": corpus_property("memory")
        },
        "required": ["path"],
        "additionalProperties": false
    })
}

fn search(state: &mut State, p: &Params<'_>) -> Outcome {
    let corpus = p.choice("corpus", Corpus::Memory, corpus_error)?;
    let req = SearchRequest {
        query: p.required("query")?.to_string(),
        mode: Mode::Auto,
        corpus,
        backend: Backend::Shared,
        max_results: p.count("maxResults", wiki_memory::search::DEFAULT_MAX_RESULTS)?,
        ranking: Ranking::Bm25f,
        min_score: min_score(p)?,
    };
    let empty = match corpus {
        Corpus::Memory => "No memory results.",
        _ => "No wiki or memory results.",
    };
    search_reply(state, &req, empty)
}

fn get(state: &mut State, p: &Params<'_>) -> Outcome {
    let corpus = p.choice("corpus", Corpus::Memory, corpus_error)?;
    let path = p.required("path")?;
    let from = p.number("from")?.map(|n| n.max(1.0) as usize);
    let lines = p.number("lines")?.map(|n| n.max(1.0) as usize);
    let wiki = |state: &mut State| {
        get_reply(
            state,
            path,
            from.unwrap_or(1),
            lines.unwrap_or(200),
            true,
            false,
        )
    };
    if corpus == Corpus::Wiki {
        return wiki(state);
    }
    match (read_memory(state, path, from, lines), corpus) {
        (Ok(reply), _) => Ok(reply),
        // corpus all: a path that is no memory file may be a wiki page.
        (Err(message), Corpus::All) => {
            let page = wiki(state)?;
            match page.structured.get("found") {
                Some(Json::Bool(true)) => Ok(page),
                _ => Err(message),
            }
        }
        (Err(message), _) => Err(message),
    }
}

fn read_memory(state: &State, path: &str, from: Option<usize>, lines: Option<usize>) -> Outcome {
    let ws = state.memory_workspace()?;
    require_workspace(&ws)?;
    let window =
        wiki_memory::cmd::get::read_window(&ws, path, from, lines).map_err(|e| e.to_string())?;
    let mut reply = Reply::new(window.text.clone(), &window);
    reply
        .structured
        .insert("corpus".into(), Json::String("memory".into()));
    Ok(reply)
}
