//! The short-term recall store of dreaming (reference §14.8), file-compatible with the
//! original's `memory/.dreams/short-term-recall.json` and `memory/.dreams/phase-signals.json`.
//!
//! Every recall of a daily-note line range adds a signal to its entry: `recallCount` (or
//! `dailyCount` for a dreaming ingestion, `groundedCount` for a grounded backfill), the summed
//! and maximum scores, the query's hash (`sha1(lowercase query)[..12]`, at most 32 kept), the day
//! (at most 16 kept) and the snippet's concept tags. Entries are keyed
//! `memory:<path>:<start>:<end>` (grounded entries add `:<sha1(snippet)[..12]>`). Snippets that
//! are dreaming's own output, marker-only lines or empty Markdown skeletons are never recorded.
//!
//! Writers take the original's lock file, `memory/.dreams/short-term-promotion.lock` (created
//! exclusively, holding `<pid>:<ms>`; a lock older than 60 s whose process is gone is stolen),
//! so this tool and a running OpenClaw do not lose each other's updates. Files are replaced
//! atomically. The JSON is written as the original writes it: two-space indentation, a final
//! newline, whole numbers without a decimal point; fields this tool does not know are kept.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::concepts;
use crate::error::{Error, Result};
use crate::workspace::Workspace;

/// The store, workspace-relative.
pub const STORE_PATH: &str = "memory/.dreams/short-term-recall.json";
/// The phase signals, workspace-relative.
pub const PHASE_SIGNALS_PATH: &str = "memory/.dreams/phase-signals.json";
/// The writers' lock, workspace-relative.
pub const LOCK_PATH: &str = "memory/.dreams/short-term-promotion.lock";
/// Query hashes kept per entry.
pub const MAX_QUERY_HASHES: usize = 32;
/// Recall days kept per entry.
pub const MAX_RECALL_DAYS: usize = 16;
/// Entries kept (the least recently recalled unpromoted ones go first).
pub const MAX_ENTRIES: usize = 512;
/// Snippet length kept (characters).
pub const MAX_SNIPPET_CHARS: usize = 800;
/// The query of grounded backfill signals.
pub const GROUNDED_QUERY: &str = "__dreaming_grounded_backfill__";

/// How a signal was observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// A recall (search or recall command).
    Recall,
    /// A dreaming ingestion of a daily note.
    Daily,
}

/// A recalled line range.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallHit {
    /// Workspace-relative path.
    pub path: String,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
    /// The text recalled.
    pub snippet: String,
    /// Its score (clamped to 0..1).
    pub score: f64,
}

/// One entry of the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Workspace-relative path.
    pub path: String,
    /// First line.
    pub start_line: u64,
    /// Last line.
    pub end_line: u64,
    /// Normalized snippet.
    pub snippet: String,
    /// Recall signals.
    pub recall_count: u64,
    /// Daily-ingestion signals.
    pub daily_count: u64,
    /// Grounded-backfill signals.
    pub grounded_count: u64,
    /// Sum of scores.
    pub total_score: f64,
    /// Best score.
    pub max_score: f64,
    /// First signal.
    pub first_recalled_at: String,
    /// Last signal.
    pub last_recalled_at: String,
    /// Hashes of the queries.
    pub query_hashes: Vec<String>,
    /// Days with a signal.
    pub recall_days: Vec<String>,
    /// Concept tags.
    pub concept_tags: Vec<String>,
    /// Hash of a grounded snippet.
    pub claim_hash: Option<String>,
    /// When it was promoted into MEMORY.md.
    pub promoted_at: Option<String>,
    /// Fields written by other versions, kept as they are.
    pub extra: Map<String, Value>,
}

impl Entry {
    /// recall + daily + grounded signals.
    pub fn signal_count(&self) -> u64 {
        self.recall_count + self.daily_count + self.grounded_count
    }
}

/// The store.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Store {
    /// `updatedAt`.
    pub updated_at: String,
    /// Entries in file order.
    pub entries: Vec<Entry>,
    /// Entries present in the file but unusable (dropped on the next write).
    pub invalid: usize,
}

/// A phase-signal entry (`lightHits`, `remHits`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PhaseEntry {
    /// The store key.
    pub key: String,
    /// Light-phase selections.
    pub light_hits: u64,
    /// REM-phase selections.
    pub rem_hits: u64,
    /// Last light selection.
    pub last_light_at: Option<String>,
    /// Last REM selection.
    pub last_rem_at: Option<String>,
}

// ----- snippets --------------------------------------------------------------------------------

/// Trim and collapse whitespace.
pub fn normalize_snippet(raw: &str) -> String {
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].trim_end().to_string(),
        None => s.to_string(),
    }
}

fn strip_leading_markers(s: &str) -> &str {
    s.trim_start_matches(|c: char| matches!(c, '-' | '*' | '+' | '>') || c.is_whitespace())
        .trim()
}

fn marker_only(line: &str) -> bool {
    let l = line.trim();
    l.is_empty() || !strip_leading_markers(l).chars().any(char::is_alphanumeric)
}

fn skeleton(raw: &str) -> bool {
    let lines: Vec<&str> = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return true;
    }
    let mut placeholder = false;
    for l in lines {
        if marker_only(l) {
            placeholder = true;
            continue;
        }
        let inner = strip_leading_markers(l);
        let hashes = inner.bytes().take_while(|b| *b == b'#').count();
        if (1..=6).contains(&hashes) && inner[hashes..].starts_with(' ') {
            if inner != l {
                placeholder = true;
            }
            continue;
        }
        return false;
    }
    placeholder
}

fn contaminated(raw: &str) -> bool {
    let s = normalize_snippet(raw);
    if s.is_empty() {
        return false;
    }
    let lower = s.to_lowercase();
    if lower.contains("openclaw-memory-promotion:")
        || (lower.contains("dreaming-narrative")
            && lower.contains("write a dream diary entry from these memory fragments"))
        || lower.starts_with("conversation summary:")
        || lower.contains("save important context from this session to the daily memory file")
    {
        return true;
    }
    // A managed dreaming line: a Candidate/Reflections lead with its recall metadata.
    let head: String = strip_leading_markers(&lower).chars().take(200).collect();
    let lead = head.contains("candidate:") || head.contains("reflection");
    lead && lower.contains("confidence:")
        && lower.contains("evidence: memory/")
        && lower.contains("status: staged")
        && lower.contains("recalls:")
}

/// Whether a snippet can never become a promotion candidate.
pub fn unpromotable(raw: &str) -> bool {
    let s = normalize_snippet(raw);
    s.is_empty() || contaminated(&s) || marker_only(&s) || skeleton(raw)
}

/// Whether `path` is a short-term memory path: a dated daily note (`memory/…/YYYY-MM-DD.md`,
/// `-slug` allowed) or a session-corpus day, and not one of dreaming's own reports.
pub fn is_short_term_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    let p = p.strip_prefix("./").unwrap_or(&p);
    if p.starts_with("memory/dreaming/") || p.contains("/memory/dreaming/") {
        return false;
    }
    let base = p.rsplit('/').next().unwrap_or(p);
    if let Some(stem) = base.strip_suffix(".md")
        && crate::workspace::day_prefix(stem).is_some()
    {
        return p == base || p.starts_with("memory/") || p.contains("/memory/");
    }
    if let Some(rest) = p
        .strip_prefix("memory/.dreams/session-corpus/")
        .filter(|r| !r.contains('/'))
    {
        let stem = rest
            .strip_suffix(".md")
            .or_else(|| rest.strip_suffix(".txt"));
        return stem.is_some_and(|s| s.len() == 10 && crate::workspace::day_prefix(s).is_some());
    }
    false
}

fn sha1_12(s: &str) -> String {
    let hex = sha1_smol::Sha1::from(s.as_bytes()).digest().to_string();
    hex[..12].to_string()
}

/// The hash of a query: `sha1(lowercase trimmed query)`, 12 hex digits.
pub fn query_hash(query: &str) -> String {
    sha1_12(&query.trim().to_lowercase())
}

/// The claim hash of a snippet.
pub fn claim_hash(snippet: &str) -> String {
    sha1_12(&normalize_snippet(snippet))
}

/// `memory:<path>:<start>:<end>[:<claimHash>]`.
pub fn entry_key(path: &str, start: u64, end: u64, claim: Option<&str>) -> String {
    match claim {
        Some(h) => format!("memory:{path}:{start}:{end}:{h}"),
        None => format!("memory:{path}:{start}:{end}"),
    }
}

// ----- reading and writing ---------------------------------------------------------------------

fn num(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0.0),
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

fn count(v: Option<&Value>) -> u64 {
    let n = num(v);
    if n.is_finite() && n > 0.0 {
        n.floor() as u64
    } else {
        0
    }
}

fn strings(v: Option<&Value>, limit: usize, lower: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(Value::Array(items)) = v {
        for item in items {
            if let Value::String(s) = item {
                let t = if lower {
                    s.trim().to_lowercase()
                } else {
                    s.trim().to_string()
                };
                if !t.is_empty() && !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    if out.len() > limit {
        out.drain(..out.len() - limit);
    }
    out
}

fn opt_str(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
}

const KNOWN: [&str; 18] = [
    "key",
    "path",
    "startLine",
    "endLine",
    "source",
    "snippet",
    "recallCount",
    "dailyCount",
    "groundedCount",
    "totalScore",
    "maxScore",
    "firstRecalledAt",
    "lastRecalledAt",
    "queryHashes",
    "recallDays",
    "conceptTags",
    "claimHash",
    "promotedAt",
];

/// Normalize one stored entry as the original does (`None`: unusable).
fn normalize_entry(map_key: &str, v: &Value, now_iso: &str) -> Option<Entry> {
    let m = v.as_object()?;
    let path = m
        .get("path")
        .and_then(Value::as_str)
        .map(|p| p.replace('\\', "/").trim_start_matches("./").to_string())
        .filter(|p| !p.is_empty())?;
    let line = |k: &str| {
        let n = num(m.get(k));
        (n.is_finite() && n.fract() == 0.0 && n >= 0.0).then_some(n as u64)
    };
    let start = line("startLine")?;
    let end = line("endLine")?;
    if m.get("source").and_then(Value::as_str) != Some("memory") {
        return None;
    }
    let snippet_raw = m.get("snippet").and_then(Value::as_str).unwrap_or("");
    if unpromotable(snippet_raw) {
        return None;
    }
    let snippet = truncate_chars(&normalize_snippet(snippet_raw), MAX_SNIPPET_CHARS);
    let claim_hash = opt_str(m.get("claimHash"));
    let key = if map_key.is_empty() {
        entry_key(&path, start, end, claim_hash.as_deref())
    } else {
        map_key.to_string()
    };
    let total = num(m.get("totalScore"));
    let max = num(m.get("maxScore"));
    let concept_tags = match m.get("conceptTags") {
        Some(Value::Array(_)) => strings(m.get("conceptTags"), concepts::MAX_CONCEPT_TAGS, true),
        _ => concepts::derive(&path, &snippet),
    };
    let recall_days: Vec<String> = strings(m.get("recallDays"), usize::MAX, false)
        .into_iter()
        .filter_map(|d| {
            d.get(..10)
                .filter(|p| p.parse::<jiff::civil::Date>().is_ok())
                .map(String::from)
        })
        .collect();
    let recall_days = recall_days[recall_days.len().saturating_sub(MAX_RECALL_DAYS)..].to_vec();
    let extra: Map<String, Value> = m
        .iter()
        .filter(|(k, _)| !KNOWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Some(Entry {
        key,
        path,
        start_line: start,
        end_line: end,
        snippet,
        recall_count: count(m.get("recallCount")),
        daily_count: count(m.get("dailyCount")),
        grounded_count: count(m.get("groundedCount")),
        total_score: if total.is_finite() {
            total.max(0.0)
        } else {
            0.0
        },
        max_score: if max.is_finite() {
            max.clamp(0.0, 1.0)
        } else {
            0.0
        },
        first_recalled_at: opt_str(m.get("firstRecalledAt")).unwrap_or_else(|| now_iso.into()),
        last_recalled_at: opt_str(m.get("lastRecalledAt")).unwrap_or_else(|| now_iso.into()),
        query_hashes: strings(m.get("queryHashes"), MAX_QUERY_HASHES, false),
        recall_days,
        concept_tags,
        claim_hash,
        promoted_at: opt_str(m.get("promotedAt")),
        extra,
    })
}

/// Parse store JSON (`path` names the file in errors).
pub fn parse_store(text: &str, path: &str, now_iso: &str) -> Result<Store> {
    if text.trim().is_empty() {
        return Ok(Store {
            updated_at: now_iso.into(),
            ..Store::default()
        });
    }
    let root: Value = serde_json::from_str(text)
        .map_err(|e| Error::Invalid(format!("{path}:{}: invalid JSON: {e}", e.line())))?;
    let mut store = Store {
        updated_at: opt_str(root.get("updatedAt")).unwrap_or_else(|| now_iso.into()),
        ..Store::default()
    };
    if let Some(Value::Object(entries)) = root.get("entries") {
        for (k, v) in entries {
            match normalize_entry(k, v, now_iso) {
                Some(e) => store.entries.push(e),
                None => store.invalid += 1,
            }
        }
    }
    Ok(store)
}

/// A number as the original writes it (whole numbers without a decimal point).
fn js_number(v: f64) -> Value {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

fn entry_json(e: &Entry) -> Value {
    let mut m = Map::new();
    m.insert("key".into(), json!(e.key));
    m.insert("path".into(), json!(e.path));
    m.insert("startLine".into(), json!(e.start_line));
    m.insert("endLine".into(), json!(e.end_line));
    m.insert("source".into(), json!("memory"));
    m.insert("snippet".into(), json!(e.snippet));
    m.insert("recallCount".into(), json!(e.recall_count));
    m.insert("dailyCount".into(), json!(e.daily_count));
    m.insert("groundedCount".into(), json!(e.grounded_count));
    m.insert("totalScore".into(), js_number(e.total_score));
    m.insert("maxScore".into(), js_number(e.max_score));
    m.insert("firstRecalledAt".into(), json!(e.first_recalled_at));
    m.insert("lastRecalledAt".into(), json!(e.last_recalled_at));
    m.insert("queryHashes".into(), json!(e.query_hashes));
    m.insert("recallDays".into(), json!(e.recall_days));
    m.insert("conceptTags".into(), json!(e.concept_tags));
    if let Some(h) = &e.claim_hash {
        m.insert("claimHash".into(), json!(h));
    }
    if let Some(p) = &e.promoted_at {
        m.insert("promotedAt".into(), json!(p));
    }
    for (k, v) in &e.extra {
        m.insert(k.clone(), v.clone());
    }
    Value::Object(m)
}

/// The store as the original writes it.
pub fn render_store(store: &Store) -> String {
    let mut entries = Map::new();
    for e in &store.entries {
        entries.insert(e.key.clone(), entry_json(e));
    }
    let root = json!({"version": 1, "updatedAt": store.updated_at, "entries": entries});
    let mut s = serde_json::to_string_pretty(&root).unwrap_or_default();
    s.push('\n');
    s
}

/// Read the store of a workspace (empty when missing).
pub fn read_store(ws: &Workspace, now_iso: &str) -> Result<Store> {
    match ws.read(STORE_PATH)? {
        Some(text) => parse_store(&text, STORE_PATH, now_iso),
        None => Ok(Store {
            updated_at: now_iso.into(),
            ..Store::default()
        }),
    }
}

/// Parse phase signals (entries without hits are dropped).
pub fn parse_phase_signals(text: &str) -> Vec<PhaseEntry> {
    let Ok(root) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(Value::Object(entries)) = root.get("entries") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(k, v)| {
            let m = v.as_object()?;
            let e = PhaseEntry {
                key: opt_str(m.get("key")).unwrap_or_else(|| k.clone()),
                light_hits: count(m.get("lightHits")),
                rem_hits: count(m.get("remHits")),
                last_light_at: opt_str(m.get("lastLightAt")),
                last_rem_at: opt_str(m.get("lastRemAt")),
            };
            (e.light_hits > 0 || e.rem_hits > 0).then_some(e)
        })
        .collect()
}

/// Read the phase signals of a workspace.
pub fn read_phase_signals(ws: &Workspace) -> Result<Vec<PhaseEntry>> {
    Ok(ws
        .read(PHASE_SIGNALS_PATH)?
        .map(|t| parse_phase_signals(&t))
        .unwrap_or_default())
}

/// Phase signals as the original writes them.
pub fn render_phase_signals(entries: &[PhaseEntry], updated_at: &str) -> String {
    let mut map = Map::new();
    for e in entries {
        let mut m = Map::new();
        m.insert("key".into(), json!(e.key));
        m.insert("lightHits".into(), json!(e.light_hits));
        m.insert("remHits".into(), json!(e.rem_hits));
        if let Some(t) = &e.last_light_at {
            m.insert("lastLightAt".into(), json!(t));
        }
        if let Some(t) = &e.last_rem_at {
            m.insert("lastRemAt".into(), json!(t));
        }
        map.insert(e.key.clone(), Value::Object(m));
    }
    let root = json!({"version": 1, "updatedAt": updated_at, "entries": map});
    let mut s = serde_json::to_string_pretty(&root).unwrap_or_default();
    s.push('\n');
    s
}

/// Replace a workspace file atomically (temporary file and rename in the same directory).
pub fn write_atomic(ws: &Workspace, rel: &str, content: &str) -> Result<()> {
    let path = ws.path(rel);
    let dir = path
        .parent()
        .ok_or_else(|| Error::Runtime(format!("{rel}: no parent directory")))?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::Invalid(format!(
            "{rel}: refusing to write through a symbolic link"
        )));
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    std::fs::write(&tmp, content).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(&path, e)
    })
}

// ----- the lock --------------------------------------------------------------------------------

/// The writers' lock (released on drop).
pub struct Lock {
    path: PathBuf,
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The largest writers' lock file read: it holds `<pid>:<ms>`. A larger one was not written by a
/// writer: its owner is unknown (as for an unreadable one), and it is never read whole.
const LOCK_LIMIT: wiki_cli::read::Limit = wiki_cli::read::Limit::new("memory lock files", 64);

fn owner_alive(path: &Path) -> bool {
    let Ok(text) = wiki_cli::read::read_bounded_string(path, LOCK_LIMIT) else {
        return false;
    };
    let Some(pid) = text
        .trim()
        .split(':')
        .next()
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|p| *p > 0)
    else {
        return false;
    };
    Path::new("/proc").is_dir() && Path::new(&format!("/proc/{pid}")).exists()
}

/// Take the lock (waiting up to 10 s).
pub fn lock(ws: &Workspace) -> Result<Lock> {
    let path = ws.path(LOCK_PATH);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let start = Instant::now();
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                use std::io::Write;
                let ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_millis())
                    .unwrap_or(0);
                let _ = writeln!(f, "{}:{ms}", std::process::id());
                return Ok(Lock { path });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let age = std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .unwrap_or_default();
                if age > Duration::from_secs(60) && !owner_alive(&path) {
                    let _ = std::fs::remove_file(&path);
                    continue;
                }
                if start.elapsed() > Duration::from_secs(10) {
                    return Err(Error::Runtime(format!(
                        "{}: timed out waiting for the short-term promotion lock",
                        path.display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(40));
            }
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
}

// ----- recording -------------------------------------------------------------------------------

fn clamp01(v: f64) -> f64 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn merge_recent(existing: &mut Vec<String>, value: &str, limit: usize) {
    existing.dedup();
    if !value.is_empty() && !existing.iter().any(|v| v == value) {
        existing.push(value.to_string());
    }
    if existing.len() > limit {
        existing.drain(..existing.len() - limit);
    }
}

/// Add recall signals of `query` for `hits` to `store` (hits on other than short-term paths are
/// ignored); returns how many entries were touched.
pub fn record(
    store: &mut Store,
    query: &str,
    hits: &[RecallHit],
    signal: Signal,
    dedupe_by_query_per_day: bool,
    day: &str,
    now_iso: &str,
) -> usize {
    let query = query.trim();
    if query.is_empty() {
        return 0;
    }
    let qh = query_hash(query);
    let mut touched = 0;
    for hit in hits {
        let path = hit.path.replace('\\', "/");
        if !is_short_term_path(&path) || unpromotable(&hit.snippet) {
            continue;
        }
        let snippet = truncate_chars(&normalize_snippet(&hit.snippet), MAX_SNIPPET_CHARS);
        let start = hit.start_line.max(1) as u64;
        let end = hit.end_line.max(1) as u64;
        let grounded_key = entry_key(&path, start, end, Some(&claim_hash(&snippet)));
        let base_key = entry_key(&path, start, end, None);
        let key = if store.entries.iter().any(|e| e.key == grounded_key) {
            grounded_key
        } else {
            base_key
        };
        let score = clamp01(hit.score);
        let idx = match store.entries.iter().position(|e| e.key == key) {
            Some(i) => i,
            None => {
                store.entries.push(Entry {
                    key: key.clone(),
                    path: path.clone(),
                    start_line: start,
                    end_line: end,
                    snippet: snippet.clone(),
                    recall_count: 0,
                    daily_count: 0,
                    grounded_count: 0,
                    total_score: 0.0,
                    max_score: 0.0,
                    first_recalled_at: now_iso.into(),
                    last_recalled_at: now_iso.into(),
                    query_hashes: Vec::new(),
                    recall_days: Vec::new(),
                    concept_tags: Vec::new(),
                    claim_hash: None,
                    promoted_at: None,
                    extra: Map::new(),
                });
                store.entries.len() - 1
            }
        };
        let e = &mut store.entries[idx];
        let dedupe = dedupe_by_query_per_day
            && e.query_hashes.contains(&qh)
            && e.recall_days.iter().any(|d| d == day);
        if !dedupe {
            match signal {
                Signal::Recall => e.recall_count += 1,
                Signal::Daily => e.daily_count += 1,
            }
            e.total_score = (e.total_score + score).max(0.0);
            e.max_score = e.max_score.max(score);
        }
        e.path = path;
        e.start_line = start;
        e.end_line = end;
        if !snippet.is_empty() {
            e.snippet = snippet.clone();
        }
        e.last_recalled_at = now_iso.into();
        merge_recent(&mut e.query_hashes, &qh, MAX_QUERY_HASHES);
        merge_recent(&mut e.recall_days, day, MAX_RECALL_DAYS);
        let tags = concepts::derive(&e.path, &e.snippet);
        if !tags.is_empty() {
            e.concept_tags = tags;
        }
        touched += 1;
    }
    store.updated_at = now_iso.into();
    evict(store);
    touched
}

/// A grounded candidate of a backfill.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundedItem {
    /// The recalled range and snippet (score in 0..1).
    pub hit: RecallHit,
    /// The query recorded for it.
    pub query: String,
    /// Signals it counts for.
    pub signal_count: u64,
    /// Its day bucket (the note's day).
    pub day: String,
}

/// Stage grounded candidates (`groundedCount`), deduplicated by query per day.
pub fn record_grounded(store: &mut Store, items: &[GroundedItem], now_iso: &str) -> usize {
    let mut touched = 0;
    for item in items {
        let hit = &item.hit;
        let path = hit.path.replace('\\', "/");
        if !is_short_term_path(&path) || unpromotable(&hit.snippet) {
            continue;
        }
        let snippet = normalize_snippet(&hit.snippet);
        let qh = query_hash(&item.query);
        let ch = claim_hash(&snippet);
        let start = hit.start_line.max(1) as u64;
        let end = hit.end_line.max(1) as u64;
        let key = entry_key(&path, start, end, Some(&ch));
        let idx = match store.entries.iter().position(|e| e.key == key) {
            Some(i) => i,
            None => {
                store.entries.push(Entry {
                    key: key.clone(),
                    path: path.clone(),
                    start_line: start,
                    end_line: end,
                    snippet: snippet.clone(),
                    recall_count: 0,
                    daily_count: 0,
                    grounded_count: 0,
                    total_score: 0.0,
                    max_score: 0.0,
                    first_recalled_at: now_iso.into(),
                    last_recalled_at: now_iso.into(),
                    query_hashes: Vec::new(),
                    recall_days: Vec::new(),
                    concept_tags: Vec::new(),
                    claim_hash: Some(ch.clone()),
                    promoted_at: None,
                    extra: Map::new(),
                });
                store.entries.len() - 1
            }
        };
        let e = &mut store.entries[idx];
        let dedupe = e.query_hashes.contains(&qh) && e.recall_days.contains(&item.day);
        let score = clamp01(hit.score);
        if !dedupe {
            e.grounded_count += item.signal_count;
            e.total_score += score * item.signal_count as f64;
            e.max_score = e.max_score.max(score);
        }
        e.snippet = snippet.clone();
        e.claim_hash = Some(ch);
        e.last_recalled_at = now_iso.into();
        merge_recent(&mut e.query_hashes, &qh, MAX_QUERY_HASHES);
        merge_recent(&mut e.recall_days, &item.day, MAX_RECALL_DAYS);
        let tags = concepts::derive(&e.path, &e.snippet);
        if !tags.is_empty() {
            e.concept_tags = tags;
        }
        touched += 1;
    }
    store.updated_at = now_iso.into();
    evict(store);
    touched
}

/// Remove staged grounded entries (grounded signals only, no recall or daily signal); returns
/// their keys.
pub fn remove_grounded(store: &mut Store, now_iso: &str) -> Vec<String> {
    let mut removed = Vec::new();
    store.entries.retain(|e| {
        let staged = e.grounded_count > 0 && e.recall_count == 0 && e.daily_count == 0;
        if staged {
            removed.push(e.key.clone());
        }
        !staged
    });
    if !removed.is_empty() {
        store.updated_at = now_iso.into();
    }
    removed
}

/// Keep at most [`MAX_ENTRIES`]: the least recently recalled unpromoted entries go first.
fn evict(store: &mut Store) {
    if store.entries.len() <= MAX_ENTRIES {
        return;
    }
    let mut order: Vec<usize> = (0..store.entries.len()).collect();
    order.sort_by(|&a, &b| {
        let (ea, eb) = (&store.entries[a], &store.entries[b]);
        ea.promoted_at
            .is_none()
            .cmp(&eb.promoted_at.is_none())
            .reverse()
            .then_with(|| ea.last_recalled_at.cmp(&eb.last_recalled_at))
    });
    let drop: BTreeSet<usize> = order
        .into_iter()
        .take(store.entries.len() - MAX_ENTRIES)
        .collect();
    let mut i = 0;
    store.entries.retain(|_| {
        let keep = !drop.contains(&i);
        i += 1;
        keep
    });
}

/// Add light or REM phase hits for `keys` known to the store; entries of unknown keys are
/// dropped.
pub fn record_phase(
    signals: &mut Vec<PhaseEntry>,
    store: &Store,
    keys: &[String],
    light: bool,
    now_iso: &str,
) {
    for key in keys {
        if !store.entries.iter().any(|e| &e.key == key) {
            continue;
        }
        let i = match signals.iter().position(|s| &s.key == key) {
            Some(i) => i,
            None => {
                signals.push(PhaseEntry {
                    key: key.clone(),
                    ..PhaseEntry::default()
                });
                signals.len() - 1
            }
        };
        let s = &mut signals[i];
        if light {
            s.light_hits = (s.light_hits + 1).min(9999);
            s.last_light_at = Some(now_iso.into());
        } else {
            s.rem_hits = (s.rem_hits + 1).min(9999);
            s.last_rem_at = Some(now_iso.into());
        }
    }
    signals.retain(|s| {
        (s.light_hits > 0 || s.rem_hits > 0) && store.entries.iter().any(|e| e.key == s.key)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-04-05T12:00:00.000Z";

    fn hit(path: &str, line: usize, snippet: &str, score: f64) -> RecallHit {
        RecallHit {
            path: path.into(),
            start_line: line,
            end_line: line,
            snippet: snippet.into(),
            score,
        }
    }

    #[test]
    fn paths_and_snippets() {
        assert!(is_short_term_path("memory/2026-04-03.md"));
        assert!(is_short_term_path("memory/2026/2026-04-03-trip.md"));
        assert!(is_short_term_path("2026-04-03.md"));
        assert!(is_short_term_path(
            "memory/.dreams/session-corpus/2026-04-03.txt"
        ));
        assert!(!is_short_term_path("memory/dreaming/rem/2026-04-03.md"));
        assert!(!is_short_term_path("MEMORY.md"));
        assert!(!is_short_term_path("memory/notes.md"));
        assert!(unpromotable("  - "));
        assert!(unpromotable("## Heading\n- "));
        assert!(unpromotable(
            "<!-- openclaw-memory-promotion:memory:x:1:1 --> text"
        ));
        assert!(unpromotable(
            "- Candidate: x - confidence: 0.6 - evidence: memory/2026-04-03.md:1-1 - recalls: 2 - status: staged"
        ));
        assert!(!unpromotable("Gateway binds loopback on port 18789"));
        assert_eq!(query_hash("  Gateway Port "), query_hash("gateway port"));
    }

    #[test]
    fn recording_counts_and_round_trips() {
        let mut store = Store::default();
        let hits = [
            hit("memory/2026-04-03.md", 3, "Gateway binds loopback", 0.8),
            hit("MEMORY.md", 1, "curated is not short-term", 0.9),
        ];
        assert_eq!(
            record(
                &mut store,
                "gateway",
                &hits,
                Signal::Recall,
                false,
                "2026-04-05",
                NOW
            ),
            1
        );
        record(
            &mut store,
            "gateway",
            &hits,
            Signal::Recall,
            true,
            "2026-04-05",
            NOW,
        );
        record(
            &mut store,
            "port",
            &hits,
            Signal::Recall,
            false,
            "2026-04-06",
            NOW,
        );
        let e = &store.entries[0];
        assert_eq!(e.key, "memory:memory/2026-04-03.md:3:3");
        assert_eq!((e.recall_count, e.query_hashes.len()), (2, 2));
        assert_eq!(e.recall_days, vec!["2026-04-05", "2026-04-06"]);
        assert!((e.total_score - 1.6).abs() < 1e-9);
        let text = render_store(&store);
        assert!(text.contains("\"startLine\": 3,\n"), "{text}");
        assert!(text.ends_with("}\n"));
        let back = parse_store(&text, STORE_PATH, NOW).unwrap();
        assert_eq!(back.entries, store.entries);
        assert_eq!(render_store(&back), text);
    }

    #[test]
    fn lenient_reading_keeps_unknown_fields() {
        let text = r#"{"version":1,"updatedAt":"x","entries":{
          "memory:memory/2026-04-03.md:1:2":{"path":"./memory/2026-04-03.md","startLine":1,"endLine":2,"source":"memory","snippet":" a  b c ","recallCount":"2","totalScore":1,"maxScore":2,"queryHashes":["a","a","b"],"recallDays":["2026-04-03T10:00:00Z"],"userQueryHashes":["q"]},
          "bad":{"path":"","startLine":1,"endLine":1,"source":"memory"},
          "bad2":{"path":"memory/x.md","startLine":1.5,"endLine":1,"source":"memory"}}}"#;
        let s = parse_store(text, STORE_PATH, NOW).unwrap();
        assert_eq!((s.entries.len(), s.invalid), (1, 2));
        let e = &s.entries[0];
        assert_eq!(
            (e.path.as_str(), e.snippet.as_str(), e.recall_count),
            ("memory/2026-04-03.md", "a b c", 2)
        );
        assert_eq!((e.max_score, e.query_hashes.len()), (1.0, 2));
        assert_eq!(e.recall_days, vec!["2026-04-03"]);
        assert!(render_store(&s).contains("\"userQueryHashes\""));
        assert!(
            parse_store("{", STORE_PATH, NOW)
                .unwrap_err()
                .to_string()
                .starts_with(STORE_PATH)
        );
    }

    #[test]
    fn grounded_staging_and_removal() {
        let mut store = Store::default();
        let item = GroundedItem {
            hit: hit(
                "memory/2025-01-01.md",
                2,
                "Always use Happy Together for flights",
                0.92,
            ),
            query: format!("{GROUNDED_QUERY}:lasting-update"),
            signal_count: 2,
            day: "2025-01-01".into(),
        };
        record_grounded(&mut store, std::slice::from_ref(&item), NOW);
        record_grounded(&mut store, std::slice::from_ref(&item), NOW);
        assert_eq!(store.entries[0].grounded_count, 2);
        assert!(
            store.entries[0]
                .key
                .starts_with("memory:memory/2025-01-01.md:2:2:")
        );
        record(
            &mut store,
            "q",
            &[hit(
                "memory/2025-01-02.md",
                1,
                "something else entirely",
                0.5,
            )],
            Signal::Recall,
            false,
            "2026-04-05",
            NOW,
        );
        assert_eq!(remove_grounded(&mut store, NOW).len(), 1);
        assert_eq!(store.entries.len(), 1);
    }
}
