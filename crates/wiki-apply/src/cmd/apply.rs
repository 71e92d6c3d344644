//! `wiki apply` / `wiki-apply`: apply operations (JSON Lines on stdin, or the `synthesis` and
//! `metadata` shortcuts of the original CLI) as one commit.

use std::io::BufRead;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value as Json};
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit, iso_millis};

use crate::diff;
use crate::error::Error;
use crate::ops::{self, dedupe};
use crate::session::{self, BatchOptions, BatchOutcome, LineOp, Session};

/// Apply narrow wiki mutations: one JSON operation per line on stdin (or `--file`), all validated
/// first and committed as ONE git commit with a trailer set per operation (`Wiki-Op`,
/// `Wiki-Page`, `Wiki-Claim`, `Wiki-Agent`, `Wiki-Source`); compiled files are refreshed in the
/// same commit.
///
/// Operations: create_synthesis (synthesis), update_metadata (metadata), add_claim,
/// update_claim, add_evidence, supersede_claim, add_relationship, add_question,
/// resolve_question, add_contradiction, resolve_contradiction. Their fields are documented in
/// the crate docs and in crates/wiki-apply/schema/operation.schema.json.
///
/// If any operation is invalid (or names a page or claim that does not exist) nothing is
/// written, the error names the line and field (`<stdin>:3: claims[0].confidence must be a
/// number between 0 and 1; received 1.5.`) and the exit status is 2.
///
/// Output: under `wiki`, text: the original plugin's sentences (`Updated <page> via <op>.
/// Refreshed <n> index files.`), the first operations and a count of the rest for a large batch.
/// `--format jsonl` (the default of `wiki-apply` and of `--stream`): one
/// `{"type":"result","op","changed","pagePath","pageId","commit"}` per operation, then one
/// `{"type":"summary",...}`; `--json`: one document with both.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The original CLI's shortcuts (without one, operations are read as JSON Lines).
    #[command(subcommand)]
    pub command: Option<Shortcut>,

    /// Print the unified diff of what would change and write nothing.
    #[arg(long, global = true)]
    pub dry_run: bool,

    /// Read operations from FILE instead of stdin (`-` = stdin).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Do not refresh compiled files (Related blocks, indexes, dashboards, agent digest) in the
    /// same commit; run `wiki compile` later.
    #[arg(long, global = true)]
    pub no_compile: bool,

    /// Keep running: apply each input line as its own batch (one commit) as soon as it
    /// arrives, print its records and flush, then read the next line, until end of input. A
    /// line holds one operation or a JSON array of operations (one batch). A batch that fails
    /// prints {"type":"error","line","message"} (JSON formats; the error also goes to stderr)
    /// and the stream goes on; the exit status is then 2. For agents that keep one process for a session of
    /// operations; each batch costs what a separate run costs.
    #[arg(long)]
    pub stream: bool,
}

/// `wiki apply synthesis|metadata`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Shortcut {
    /// Create or refresh a synthesis page with managed summary content.
    Synthesis(SynthesisArgs),
    /// Update metadata on an existing page.
    Metadata(MetadataArgs),
}

/// Flags shared by `synthesis` and `metadata` (repeatable flags collect; lists are trimmed and
/// de-duplicated; empty lists are omitted).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MutationFlags {
    /// Source id (repeatable).
    #[arg(long = "source-id", value_name = "ID")]
    pub source_ids: Vec<String>,
    /// Contradiction note (repeatable).
    #[arg(long = "contradiction", value_name = "TEXT")]
    pub contradictions: Vec<String>,
    /// Open question (repeatable).
    #[arg(long = "question", value_name = "TEXT")]
    pub questions: Vec<String>,
    /// Confidence score between 0 and 1.
    #[arg(long, value_name = "N", value_parser = parse_confidence, allow_hyphen_values = true)]
    pub confidence: Option<f64>,
    /// Page status.
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,
}

/// `wiki apply synthesis <title>`.
#[derive(Debug, Clone, clap::Args)]
pub struct SynthesisArgs {
    /// Synthesis title.
    #[arg(value_name = "TITLE")]
    pub title: String,
    /// Summary body text.
    #[arg(long, value_name = "TEXT")]
    pub body: Option<String>,
    /// Read summary body text from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub flags: MutationFlags,
}

/// `wiki apply metadata <lookup>`.
#[derive(Debug, Clone, clap::Args)]
pub struct MetadataArgs {
    /// Relative path or page id.
    #[arg(value_name = "LOOKUP")]
    pub lookup: String,
    /// Remove any stored confidence value.
    #[arg(long, conflicts_with = "confidence")]
    pub clear_confidence: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub flags: MutationFlags,
}

fn parse_confidence(value: &str) -> Result<f64, String> {
    let t = value.trim();
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '+' || c == '-')
        && t.chars().filter(|c| *c == '.').count() <= 1;
    match t.parse::<f64>() {
        Ok(n) if ok && n.is_finite() && (0.0..=1.0).contains(&n) => Ok(n),
        _ => Err("--confidence must be a number between 0 and 1.".into()),
    }
}

/// CLI lists: trimmed, de-duplicated, `None` when empty.
fn cli_list(values: &[String]) -> Option<Json> {
    let items = dedupe(
        values
            .iter()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
    );
    (!items.is_empty()).then(|| Json::Array(items.into_iter().map(Json::String).collect()))
}

fn shortcut_op(shortcut: &Shortcut) -> Result<ops::Op, Error> {
    let mut m = Map::new();
    let flags = match shortcut {
        Shortcut::Synthesis(a) => &a.flags,
        Shortcut::Metadata(a) => &a.flags,
    };
    match shortcut {
        Shortcut::Synthesis(a) => {
            let Some(source_ids) = cli_list(&flags.source_ids) else {
                return Err(Error::Invalid(
                    "wiki apply synthesis requires at least one --source-id.".into(),
                ));
            };
            let body = match (&a.body, &a.body_file) {
                (Some(b), _) if !b.trim().is_empty() => b.clone(),
                (_, Some(f)) if !f.as_os_str().is_empty() => {
                    // The body becomes a page: bounded by the page limit.
                    wiki_cli::read::read_bounded_string(f, wiki_vault::PAGE_LIMIT)
                        .map_err(|e| Error::Runtime(format!("{}: {e}", f.display())))?
                }
                _ => {
                    return Err(Error::Invalid(
                        "wiki apply synthesis requires --body or --body-file.".into(),
                    ));
                }
            };
            m.insert("op".into(), "create_synthesis".into());
            m.insert("title".into(), a.title.clone().into());
            m.insert("body".into(), body.into());
            m.insert("sourceIds".into(), source_ids);
            if let Some(c) = flags.confidence {
                m.insert("confidence".into(), c.into());
            }
        }
        Shortcut::Metadata(a) => {
            m.insert("op".into(), "update_metadata".into());
            m.insert("lookup".into(), a.lookup.clone().into());
            if let Some(ids) = cli_list(&flags.source_ids) {
                m.insert("sourceIds".into(), ids);
            }
            if a.clear_confidence {
                m.insert("confidence".into(), Json::Null);
            } else if let Some(c) = flags.confidence {
                m.insert("confidence".into(), c.into());
            }
        }
    }
    if let Some(c) = cli_list(&flags.contradictions) {
        m.insert("contradictions".into(), c);
    }
    if let Some(q) = cli_list(&flags.questions) {
        m.insert("questions".into(), q);
    }
    if let Some(s) = flags
        .status
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        m.insert("status".into(), s.into());
    }
    ops::parse_op(&Json::Object(m)).map_err(Error::Invalid)
}

/// The input as text, or an error naming the line and (byte) column of the first byte that is
/// not UTF-8 (`<stdin>:3: not valid UTF-8 (byte 0xff at column 5)`).
pub fn decode_input(bytes: Vec<u8>, origin: &str) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let byte = bytes
            .get(at)
            .map_or(String::new(), |b| format!("byte 0x{b:02x} "));
        Error::At {
            origin: origin.to_string(),
            line: wiki_parse::markdown::line_of_offset(bytes, at),
            message: format!("not valid UTF-8 ({byte}at column {})", at - line_start + 1),
        }
    })
}

/// Parse every line of `input` (blank lines skipped); the first invalid line is the error.
pub fn parse_input(input: &str, origin: &str) -> Result<Vec<LineOp>, Error> {
    let mut out = Vec::new();
    for (i, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let op = ops::parse_line(line).map_err(|message| Error::At {
            origin: origin.to_string(),
            line: i + 1,
            message,
        })?;
        out.push(LineOp { line: i + 1, op });
    }
    Ok(out)
}

/// One result record.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    op: &'static str,
    changed: bool,
    page_path: &'a str,
    page_id: Option<&'a str>,
    commit: Option<String>,
}

/// Text output names each operation of a batch of up to this many …
const TEXT_RESULTS_MAX: usize = 20;
/// … and the first this many of a larger one.
const TEXT_RESULTS_SHOWN: usize = 10;

/// The summary record.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    operations: usize,
    changed: usize,
    commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    human_commit: Option<String>,
    agent: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<&'a str>,
    files: Vec<&'a str>,
    compiled: Vec<&'a str>,
    retries: usize,
    dry_run: bool,
}

/// Run `wiki apply`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    // `--stream` is a protocol for agents: JSON Lines unless asked otherwise.
    let default = match args.stream {
        true => Format::Jsonl,
        false => wiki_cli::output::default_format(Format::Jsonl),
    };
    let format = global.format_among(default, &[Format::Jsonl, Format::Json, Format::Text])?;
    if args.stream {
        if args.command.is_some() {
            return Err(CliError::Usage(
                "--stream reads operations from stdin or --file; it takes no synthesis/metadata shortcut"
                    .into(),
            ));
        }
        return run_stream(global, args, format);
    }
    let now = iso_millis(global.now()?);
    let (ops, origin) = match &args.command {
        Some(s) => (
            vec![LineOp {
                line: 1,
                op: shortcut_op(s)?,
            }],
            None,
        ),
        None => {
            let (mut reader, origin) = open_input(args)?;
            let mut input = Vec::new();
            read_limited(&mut reader, &mut input, |r, buf| read_all(r, buf))
                .map_err(|e| read_error(&origin, &e))?;
            let input = decode_input(input, &origin)?;
            (parse_input(&input, &origin)?, Some(origin))
        }
    };
    let session = Session::open(global)?;
    let compiler = super::compiler(args.no_compile, args.dry_run)?;
    let outcome = session::apply_batch(
        &session,
        &ops,
        &BatchOptions {
            origin,
            now,
            dry_run: args.dry_run,
            compiler: compiler.as_ref(),
            trace: crate::session::trace_enabled(),
        },
    )?;
    print(global, format, args.dry_run, &session, &outcome)?;
    Ok(exit::OK)
}

/// `--stream`: one batch per input line, each printed and flushed before the next line is read.
fn run_stream(global: &GlobalArgs, args: &Args, format: Format) -> Result<u8, CliError> {
    let (mut input, origin) = open_input(args)?;
    let compiler = super::compiler(args.no_compile, args.dry_run)?;
    let mut failed = false;
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        read_limited(&mut input, &mut line, |r, buf| r.read_until(b'\n', buf))
            .map_err(|e| read_error(&origin, &e))?;
        if line.is_empty() {
            break;
        }
        number += 1;
        let batch = stream_ops(std::mem::take(&mut line), &origin, number).and_then(|ops| {
            if ops.is_empty() {
                return Ok(());
            }
            let session = Session::open(global)?;
            let outcome = session::apply_batch(
                &session,
                &ops,
                &BatchOptions {
                    origin: Some(origin.clone()),
                    now: iso_millis(global.now()?),
                    dry_run: args.dry_run,
                    compiler: compiler.as_ref(),
                    trace: crate::session::trace_enabled(),
                },
            )?;
            // Freed once printed.
            print(global, format, args.dry_run, &session, &outcome)
        });
        match batch {
            Ok(()) => {}
            Err(CliError::BrokenPipe) => return Ok(exit::OK),
            Err(e) => {
                failed = true;
                wiki_cli::warn(&wiki_cli::program_name(), &format!("error: {e}"));
                if format != Format::Text {
                    let mut out = Output::new();
                    out.record(&serde_json::json!({
                        "type": "error",
                        "line": number,
                        "message": e.to_string(),
                    }))?;
                    out.flush()?;
                }
            }
        }
    }
    Ok(if failed { exit::ERROR } else { exit::OK })
}

/// The most operations input read at once (the whole input, or one `--stream` line): a batch
/// can touch many pages, but no single page may exceed the page limit, so an input far larger
/// than that is a mistake; refusing it keeps a runaway producer from exhausting memory.
const OPERATIONS_INPUT: u64 = 64 << 20;

/// `read` (`read_to_end` or `read_until`) into `buf`, stopping one byte past
/// [`OPERATIONS_INPUT`]; more than that is an `InvalidData` error naming the limit.
fn read_limited<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    read: impl FnOnce(&mut std::io::Take<&mut R>, &mut Vec<u8>) -> std::io::Result<usize>,
) -> std::io::Result<()> {
    read(&mut std::io::Read::take(reader, OPERATIONS_INPUT + 1), buf)?;
    if buf.len() as u64 > OPERATIONS_INPUT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "too large (more than {OPERATIONS_INPUT} bytes; the limit for operations input is {OPERATIONS_INPUT})"
            ),
        ));
    }
    Ok(())
}

/// `read_to_end` through the buffer only: a file's own `read_to_end` reserves the size the file
/// claims (a sparse file claims any size) before [`read_limited`]'s bound applies.
fn read_all<R: BufRead>(reader: &mut R, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let start = buf.len();
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(buf.len() - start);
        }
        let n = chunk.len();
        buf.extend_from_slice(chunk);
        reader.consume(n);
    }
}

/// Where operations are read from (`--file FILE`, else stdin) and its name for error locations
/// (the file's path, or `<stdin>`).
fn open_input(args: &Args) -> Result<(Box<dyn BufRead>, String), CliError> {
    Ok(match &args.file {
        Some(f) if f.as_os_str() != "-" => {
            let file = std::fs::File::open(f)
                .map_err(|e| CliError::Runtime(format!("{}: {e}", f.display())))?;
            (
                Box::new(std::io::BufReader::new(file)),
                f.display().to_string(),
            )
        }
        _ => (Box::new(std::io::stdin().lock()), STDIN.to_string()),
    })
}

/// The input's name when it is stdin.
const STDIN: &str = "<stdin>";

/// A failed read of the input named `origin` (see [`open_input`]).
fn read_error(origin: &str, e: &std::io::Error) -> CliError {
    if origin == STDIN {
        CliError::Runtime(format!("cannot read stdin: {e}"))
    } else {
        CliError::Runtime(format!("{origin}: {e}"))
    }
}

/// The operations of line `number` of a stream: one JSON object, or an array of them (one
/// batch); none for a blank line.
fn stream_ops(bytes: Vec<u8>, origin: &str, number: usize) -> Result<Vec<LineOp>, CliError> {
    let at = |message: String| Error::At {
        origin: origin.to_string(),
        line: number,
        message,
    };
    let text = decode_input(bytes, origin).map_err(|e| match e {
        Error::At { message, .. } => at(message),
        other => other,
    })?;
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    if !text.starts_with('[') {
        let op = ops::parse_line(text).map_err(at)?;
        return Ok(vec![LineOp { line: number, op }]);
    }
    let items: Vec<Json> =
        serde_json::from_str(text).map_err(|e| at(format!("invalid JSON: {e}")))?;
    if items.is_empty() {
        return Err(at("an array of operations must not be empty".into()).into());
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let op = ops::parse_op(item).map_err(|m| at(format!("operation {}: {m}", i + 1)))?;
            Ok(LineOp { line: number, op })
        })
        .collect()
}

fn print(
    global: &GlobalArgs,
    format: Format,
    dry_run: bool,
    session: &Session,
    outcome: &BatchOutcome,
) -> Result<(), CliError> {
    let mut out = Output::new();
    let all_changes = || outcome.page_changes.iter().chain(&outcome.compile_changes);
    let explicit_records = global.json || global.format.is_some();
    if dry_run && (!explicit_records || format == Format::Text) {
        out.text(&diff::diff_all(all_changes()))?;
        return out.flush();
    }
    let commit = outcome.commit.map(|c| c.to_string());
    let records: Vec<ResultRecord<'_>> = outcome
        .results
        .iter()
        .map(|r| ResultRecord {
            kind: "result",
            op: r.op.as_str(),
            changed: r.changed,
            page_path: &r.page_path,
            page_id: r.page_id.as_deref(),
            commit: commit.clone(),
        })
        .collect();
    let summary = Summary {
        kind: "summary",
        operations: outcome.results.len(),
        changed: outcome.results.iter().filter(|r| r.changed).count(),
        commit: commit.clone(),
        human_commit: outcome.human_commit.map(|c| c.to_string()),
        agent: &session.agent,
        branch: session.branch.as_deref(),
        files: outcome
            .page_changes
            .iter()
            .map(|c| c.path.as_str())
            .collect(),
        compiled: outcome.compiled.iter().map(String::as_str).collect(),
        retries: outcome.retries,
        dry_run,
    };
    match format {
        Format::Text => {
            let n = outcome.compiled.len();
            let refreshed = if n > 0 {
                format!("Refreshed {n} index file{}.", if n == 1 { "" } else { "s" })
            } else {
                "Indexes unchanged.".to_string()
            };
            // A large batch: the first operations, then a count of the rest.
            let shown = match outcome.results.len() {
                n if n > TEXT_RESULTS_MAX => TEXT_RESULTS_SHOWN,
                n => n,
            };
            for r in &outcome.results[..shown] {
                out.line(&format!(
                    "{} {} via {}. {refreshed}",
                    if r.changed {
                        "Updated"
                    } else {
                        "No changes for"
                    },
                    r.page_path,
                    r.op.as_str()
                ))?;
            }
            let rest = &outcome.results[shown..];
            if !rest.is_empty() {
                out.line(&format!(
                    "… and {} more {} ({} changed); --format jsonl lists every operation.",
                    rest.len(),
                    if rest.len() == 1 {
                        "operation"
                    } else {
                        "operations"
                    },
                    rest.iter().filter(|r| r.changed).count()
                ))?;
            }
        }
        Format::Json => {
            let mut doc = Map::new();
            doc.insert(
                "results".into(),
                serde_json::to_value(&records).unwrap_or(Json::Null),
            );
            doc.insert(
                "summary".into(),
                serde_json::to_value(&summary).unwrap_or(Json::Null),
            );
            if dry_run {
                doc.insert("diff".into(), Json::String(diff::diff_all(all_changes())));
            }
            out.json(&Json::Object(doc))?;
        }
        _ => {
            if dry_run {
                for c in all_changes() {
                    out.record(&serde_json::json!({
                        "type": "diff",
                        "path": c.path,
                        "diff": diff::file_diff(c),
                    }))?;
                }
            }
            for r in &records {
                out.record(r)?;
            }
            out.record(&summary)?;
        }
    }
    out.flush()
}
