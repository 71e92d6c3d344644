//! `wiki search` (porcelain) and `wiki-search` (plumbing).
//!
//! Output formats:
//! * text (default of `wiki search`): the reference §7.8 layout — per result
//!   `<i>. <title> (<corpus>/<kind>)`, `Path:`, `Lines:` (memory), `Provenance:`, `Claim:`,
//!   `Evidence:`, `Snippet:` lines, results separated by a blank line; `No wiki or memory
//!   results.` when there is none;
//! * `--json`: the array of results (reference §7.7 fields);
//! * `--format jsonl` (default of `wiki-search`): one `{"type":"hit",...}` record per result,
//!   the same fields after `type`.
//!
//! Exit status: 0 with results, 1 without, 2 on errors.

use std::io::BufRead;
use std::path::PathBuf;

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::cmd::{
    Backend, cli_error, corpora, memory_dir, memory_settings, parse_min_score, vault_view,
};
use crate::rank::{Hit, Mode, Query, Ranking};
use crate::store::Options;
use crate::{Corpus, Index};

const MODE_ERROR: &str = "wiki search --mode must be one of: auto, find-person, route-question, source-evidence, raw-claim.";

fn parse_mode(s: &str) -> Result<Mode, String> {
    <Mode as clap::ValueEnum>::from_str(s, false).map_err(|_| MODE_ERROR.to_string())
}

fn parse_backend(s: &str) -> Result<Backend, String> {
    <Backend as clap::ValueEnum>::from_str(s, false)
        .map_err(|_| format!("Invalid backend: {s}. Expected one of: shared, local"))
}

/// Search the wiki (and the memory corpus) for a natural-language query or identifier.
///
/// Pages are ranked with BM25F over weighted fields (title, ids and aliases, claims, routing
/// fields, metadata, body) and then with the structural signals of the vault (claim status,
/// confidence and freshness, mode boosts); see the `wiki-search` crate docs for the formula. The
/// index sidecar in `.openclaw-wiki/index/` is refreshed incrementally before each search.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The query (several words may be given without quotes).
    #[arg(
        value_name = "QUERY",
        required_unless_present_any = ["batch", "serve", "server"],
        num_args = 1..
    )]
    pub query: Vec<String>,

    /// Ranking mode: auto, find-person, route-question, source-evidence, raw-claim.
    #[arg(long, default_value = "auto", value_parser = parse_mode)]
    pub mode: Mode,

    /// Corpus: wiki pages, memory files, or both (balanced).
    #[arg(long, value_enum, default_value = "wiki")]
    pub corpus: Corpus,

    /// Backend: `shared` searches the memory corpus when --corpus asks for it; `local` never does.
    #[arg(long, default_value = "shared", value_parser = parse_backend)]
    pub backend: Backend,

    /// Maximum number of results (at least 1).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_results: usize,

    /// Memory workspace (default: $WIKI_MEMORY_DIR, else $OPENCLAW_STATE_DIR/workspace, else
    /// ~/.openclaw/workspace).
    #[arg(long, value_name = "DIR", env = "WIKI_MEMORY_DIR")]
    pub memory: Option<PathBuf>,

    /// Memory corpus: drop hits scoring below this (0 to 1; when none reaches it, the lexical
    /// hits are kept). Default: `agents.list[<agent>].memorySearch.query.minScore`, else
    /// `agents.defaults.memorySearch.query.minScore` of the OpenClaw config, else 0.35.
    #[arg(long, value_name = "SCORE", value_parser = parse_min_score)]
    pub min_score: Option<f64>,

    /// Ranking function: `bm25f` (default), or `reference` — the original plugin's scoring,
    /// which reads every page (a baseline for comparisons).
    #[arg(long, value_enum, default_value = "bm25f")]
    pub ranking: Ranking,

    /// Use the index as it is, without checking the pages for changes (faster on large vaults;
    /// results may miss edits made since the last search or `wiki index`).
    #[arg(long)]
    pub no_refresh: bool,

    /// Read one query per line from stdin and print `{"type":"batch","query":…,"paths":[…]}`
    /// per query, reusing one index (benchmarks).
    #[arg(long, hide = true)]
    pub batch: bool,

    /// Run a search server for the vault in the foreground (Linux): it keeps the index in memory
    /// and learns from inotify which pages changed, so searches answered by it skip the stat of
    /// every page. Plain searches use a running server automatically (same output) and fall back
    /// to searching in-process when there is none (or with `WIKI_SEARCH_SERVER=off`); with
    /// `WIKI_SEARCH_SERVER=auto` a search that finds none starts one in the background. inotify
    /// does not see writes through `mmap` nor changes made by other machines on network file
    /// systems: do not use a server there. Exits after --idle-timeout, on `--server stop`, on
    /// SIGTERM, or when the vault or its socket disappears. See `--server`.
    #[arg(long, conflicts_with_all = ["server", "batch"])]
    pub serve: bool,

    /// Manage the vault's search server in the background (Linux): `start` (detached; no-op when
    /// one is running; log in `.openclaw-wiki/tmp/search-server.log`), `stop`, `status` (exit 0
    /// when running, 1 when not). One server per vault.
    #[arg(long, value_enum, value_name = "ACTION", conflicts_with = "batch")]
    pub server: Option<crate::server::Action>,

    /// Seconds without a request after which the search server exits (0: never).
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    pub idle_timeout: u64,

    /// Detach the server from the terminal session (used by `--server start`).
    #[arg(long, hide = true, requires = "serve")]
    pub detach: bool,
}

impl Args {
    /// A search for `query` with every flag at its default (what clap gives for `wiki search
    /// QUERY`).
    pub fn plain(query: Vec<String>) -> Args {
        Args {
            query,
            mode: Mode::Auto,
            corpus: Corpus::Wiki,
            backend: Backend::Shared,
            max_results: 10,
            memory: None,
            min_score: None,
            ranking: Ranking::Bm25f,
            no_refresh: false,
            batch: false,
            serve: false,
            server: None,
            idle_timeout: 1800,
            detach: false,
        }
    }
}

#[derive(Serialize)]
struct HitRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    hit: &'a Hit,
}

#[derive(Serialize)]
struct BatchRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    query: &'a str,
    paths: Vec<&'a str>,
}

/// Render results as the reference text (§7.8), with a trailing newline.
pub fn render_text(hits: &[Hit]) -> String {
    if hits.is_empty() {
        return "No wiki or memory results.\n".into();
    }
    let blocks: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut lines = vec![
                format!("{}. {} ({}/{})", i + 1, h.title, h.corpus, h.kind),
                format!("Path: {}", h.path),
            ];
            if let (Some(a), Some(b)) = (h.start_line, h.end_line) {
                lines.push(format!("Lines: {a}-{b}"));
            }
            if let Some(p) = &h.meta.provenance_label {
                lines.push(format!("Provenance: {p}"));
            }
            if let Some(c) = &h.matched_claim_id {
                lines.push(format!("Claim: {c}"));
            }
            if let Some(k) = h.evidence_kinds.as_ref().filter(|k| !k.is_empty()) {
                lines.push(format!("Evidence: {}", k.join(", ")));
            }
            lines.push(format!("Snippet: {}", h.snippet));
            lines.join("\n")
        })
        .collect();
    format!("{}\n", blocks.join("\n\n"))
}

/// The open indexes of a search.
pub(crate) struct Indexes<'a> {
    pub(crate) wiki: Option<&'a Index>,
    pub(crate) memory: Option<&'a Index>,
}

/// The hits of one query (shared by the in-process search and the search server).
pub(crate) fn run_queries(
    idx: &Indexes<'_>,
    args: &Args,
    text: &str,
    mem: &crate::memory::Settings,
    now_ms: i64,
) -> Result<Vec<Hit>, crate::Error> {
    let max = args.max_results.max(1);
    let q = Query {
        text: text.to_string(),
        mode: args.mode,
        max_results: max,
        ranking: args.ranking,
    };
    let wiki = match idx.wiki {
        Some(i) => crate::rank::search(i, &q, now_ms)?,
        None => Vec::new(),
    };
    let memory = match idx.memory {
        Some(i) => crate::memory::search_with(i, text, args.mode, max, mem, now_ms)?,
        None => Vec::new(),
    };
    Ok(crate::merge(wiki, memory, args.corpus, max))
}

/// The bytes a search prints on stdout for `hits` in `format`, and its exit code (shared by the
/// in-process search and the search server, so both print the same bytes).
pub(crate) fn render(hits: &[Hit], format: Format) -> Result<(String, u8), CliError> {
    let json = |e: serde_json::Error| CliError::Runtime(format!("cannot write output: {e}"));
    let text = match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(hits).map_err(json)?;
            s.push('\n');
            s
        }
        Format::Jsonl => {
            let mut s = String::new();
            for h in hits {
                s.push_str(
                    &serde_json::to_string(&HitRecord {
                        kind: "hit",
                        hit: h,
                    })
                    .map_err(json)?,
                );
                s.push('\n');
            }
            s
        }
        _ => render_text(hits),
    };
    let code = if hits.is_empty() {
        exit::FOUND
    } else {
        exit::OK
    };
    Ok((text, code))
}

fn execute(
    global: &GlobalArgs,
    args: &Args,
    program: &str,
    default: Format,
) -> Result<u8, CliError> {
    if args.serve || args.server.is_some() {
        return crate::server::command(global, args, program, default);
    }
    let t0 = std::time::Instant::now();
    let format = global.format_among(default, &[Format::Text, Format::Json, Format::Jsonl])?;
    let now_ms = global.now()?.as_millisecond();
    if !SERVER_ASKED.load(std::sync::atomic::Ordering::Relaxed)
        && let Some((text, code)) =
            crate::server::client_search(global, args, format, now_ms, program)
    {
        return print_served(&text, code, t0);
    }
    let (vault, view) = vault_view(global)?;
    let (want_wiki, want_memory) = corpora(args.corpus, args.backend);
    let (mem_dir, mem) = if want_memory {
        let settings = memory_settings(args.min_score, global.agent_id()?.as_deref())?;
        (Some(memory_dir(args.memory.as_deref())?), settings)
    } else {
        (None, crate::memory::Settings::default())
    };
    let opts = Options {
        rebuild: false,
        program: program.to_string(),
        no_refresh: args.no_refresh,
    };
    let open = |o: &Options| -> Result<(Option<Index>, Option<Index>), crate::Error> {
        Ok((
            if want_wiki {
                Some(crate::open_wiki(&vault, &view, o)?)
            } else {
                None
            },
            match &mem_dir {
                Some(d) => Some(crate::open_memory(&vault, d, o)?),
                None => None,
            },
        ))
    };
    fn refs(idx: &(Option<Index>, Option<Index>)) -> Indexes<'_> {
        Indexes {
            wiki: idx.0.as_ref(),
            memory: idx.1.as_ref(),
        }
    }
    let mut idx = open(&opts).map_err(cli_error)?;
    let mut out = Output::new();
    if args.batch {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let line = line.map_err(CliError::runtime)?;
            let query = line.trim();
            if query.is_empty() {
                continue;
            }
            let hits = run_queries(&refs(&idx), args, query, &mem, now_ms).map_err(cli_error)?;
            out.record(&BatchRecord {
                kind: "batch",
                query,
                paths: hits.iter().map(|h| h.path.as_str()).collect(),
            })?;
        }
        out.flush()?;
        return Ok(exit::OK);
    }
    let text = args.query.join(" ");
    let hits = match run_queries(&refs(&idx), args, &text, &mem, now_ms) {
        Err(crate::Error::Corrupt(dir, why)) => {
            wiki_cli::warn(
                program,
                &format!("index {} is corrupt ({why}): rebuilding it", dir.display()),
            );
            drop(idx);
            idx = open(&Options {
                rebuild: true,
                ..opts.clone()
            })
            .map_err(cli_error)?;
            run_queries(&refs(&idx), args, &text, &mem, now_ms).map_err(cli_error)?
        }
        other => other.map_err(cli_error)?,
    };
    let (text, code) = render(&hits, format)?;
    out.text(&text)?;
    out.flush()?;
    if std::env::var_os("WIKI_SEARCH_TRACE").is_some() {
        eprintln!("trace: total {:.3} ms", t0.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(code)
}

/// Whether this process already asked the search server (so a search it declined is not asked
/// again on the way to the in-process search).
static SERVER_ASKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The command line of `wiki-search` parsed without clap, when it consists only of query words
/// and the flags a search server can answer (`--vault DIR`, `--mode`, `--max-results`,
/// `--format`, `--json`, `--ranking`, `--corpus`, `--backend`, each once, values as separate
/// arguments, query words in one run): the same values clap would give (a unit test compares
/// them). Anything else — other flags, `--flag=value`, values starting with `-`, repeated flags,
/// invalid values, non-UTF-8 — is `None`, and clap parses the command line as usual.
pub fn fast_parse(argv: &[std::ffi::OsString]) -> Option<(GlobalArgs, Args)> {
    use clap::ValueEnum;
    let mut global = GlobalArgs::default();
    let mut args = Args::plain(Vec::new());
    let mut seen: Vec<&str> = Vec::new();
    let mut words_ended = false;
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_str()?;
        let Some(flag) = a.strip_prefix("--") else {
            if a.starts_with('-') || a.is_empty() || words_ended {
                return None;
            }
            args.query.push(a.to_string());
            continue;
        };
        if seen.contains(&flag) {
            return None;
        }
        seen.push(flag);
        words_ended = !args.query.is_empty();
        if flag == "json" {
            global.json = true;
            continue;
        }
        let v = it.next()?.to_str()?;
        if v.is_empty() || v.starts_with('-') {
            return None;
        }
        match flag {
            "vault" => global.vault = Some(PathBuf::from(v)),
            "mode" => args.mode = parse_mode(v).ok()?,
            "max-results" if v.bytes().all(|b| b.is_ascii_digit()) => {
                args.max_results = v.parse().ok()?;
            }
            "format" => global.format = Some(Format::from_str(v, false).ok()?),
            "ranking" => args.ranking = Ranking::from_str(v, false).ok()?,
            "corpus" => args.corpus = Corpus::from_str(v, false).ok()?,
            "backend" => args.backend = parse_backend(v).ok()?,
            _ => return None,
        }
    }
    if args.query.is_empty() || (global.json && global.format.is_some()) {
        return None;
    }
    Some((global, args))
}

/// `wiki-search` answered by the vault's search server without parsing the command line with
/// clap (see [`fast_parse`]): the exit code, or `None` to go the usual way.
pub fn run_served(program: &str) -> Option<std::process::ExitCode> {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    run_served_argv(program, &argv, Format::Jsonl)
}

/// [`run_served`] for a command line `argv` (program name first, then the search's arguments)
/// whose output format defaults to `default` (`wiki search` prints text, `wiki-search` JSON
/// Lines).
pub fn run_served_argv(
    program: &str,
    argv: &[std::ffi::OsString],
    default: Format,
) -> Option<std::process::ExitCode> {
    let t0 = std::time::Instant::now();
    let (global, args) = fast_parse(argv)?;
    let format = global
        .format_among(default, &[Format::Text, Format::Json, Format::Jsonl])
        .ok()?;
    let now_ms = global.now().ok()?.as_millisecond();
    // clap would parse the same values, so the usual way would ask the same question.
    SERVER_ASKED.store(true, std::sync::atomic::Ordering::Relaxed);
    let (text, code) = crate::server::client_search(&global, &args, format, now_ms, program)?;
    Some(wiki_cli::main_wrapper(program, || {
        print_served(&text, code, t0)
    }))
}

fn print_served(text: &str, code: u8, t0: std::time::Instant) -> Result<u8, CliError> {
    let mut out = Output::new();
    out.text(text)?;
    out.flush()?;
    if std::env::var_os("WIKI_SEARCH_TRACE").is_some() {
        eprintln!(
            "trace: server-total {:.3} ms",
            t0.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(code)
}

/// Run `wiki search` (text output by default).
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    execute(global, args, "wiki", Format::Text)
}

/// Run `wiki-search` (JSON Lines `hit` records by default).
pub fn run_plumbing(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    execute(global, args, "wiki-search", Format::Jsonl)
}

/// The command line of the `wiki-search` binary (also used to generate its man page).
#[derive(Debug, clap::Parser)]
#[command(
    name = "wiki-search",
    version,
    about = "Search a wiki vault (JSON Lines hit records)"
)]
pub struct Cli {
    /// Shared flags.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Command arguments.
    #[command(flatten)]
    pub args: Args,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &[&str]) -> Vec<std::ffi::OsString> {
        std::iter::once("wiki-search")
            .chain(line.iter().copied())
            .map(Into::into)
            .collect()
    }

    /// What [`fast_parse`] accepts, clap parses to the same values; what it refuses is left to
    /// clap (which may accept or reject it).
    #[test]
    fn fast_parse_agrees_with_clap() {
        use clap::Parser;
        let accepted: &[&[&str]] = &[
            &["alpha"],
            &["who", "owns", "billing"],
            &["alpha", "--mode", "find-person"],
            &["--vault", "/tmp/v", "alpha", "beta"],
            &["--vault", "rel/v", "--max-results", "3", "alpha"],
            &["alpha", "--max-results", "007", "--ranking", "reference"],
            &[
                "alpha",
                "--format",
                "text",
                "--corpus",
                "all",
                "--backend",
                "local",
            ],
            &["alpha", "--json", "--mode", "raw-claim"],
            &["--corpus", "memory", "alpha"],
            &["alpha", "--format", "github"],
            &["--max-results", "0", "alpha"],
        ];
        for line in accepted {
            let a = argv(line);
            let (g, mut x) = fast_parse(&a).unwrap_or_else(|| panic!("refused {line:?}"));
            let mut c = Cli::try_parse_from(&a).unwrap_or_else(|e| panic!("{line:?}: {e}"));
            // The memory directory comes from the environment for clap; searches that use it are
            // never served.
            c.args.memory = None;
            x.memory = None;
            assert_eq!(format!("{g:?}"), format!("{:?}", c.global), "{line:?}");
            assert_eq!(format!("{x:?}"), format!("{:?}", c.args), "{line:?}");
        }
        let refused: &[&[&str]] = &[
            &[],
            &["--mode", "auto"],
            &["alpha", "--mode=auto"],
            &["alpha", "--mode", "nope"],
            &["alpha", "--mode", "auto", "--mode", "auto"],
            &["alpha", "--max-results", "-1"],
            &["alpha", "--max-results", "+1"],
            &["alpha", "--max-results", "x"],
            &["alpha", "--max-results"],
            &["alpha", "--json", "--format", "json"],
            &["alpha", "--agent", "ops"],
            &["alpha", "--no-refresh"],
            &["alpha", "--batch"],
            &["alpha", "--serve"],
            &["alpha", "-h"],
            &["--version"],
            &["alpha", "--", "beta"],
            &["alpha", "-x"],
            &["alpha", "--vault", ""],
            &["alpha", "--mode", "auto", "beta"],
            &["alpha", "--format", "yaml"],
            &["alpha", "--now", "2026-01-01"],
        ];
        for line in refused {
            assert!(fast_parse(&argv(line)).is_none(), "{line:?}");
        }
    }
}
