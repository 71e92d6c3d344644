//! `wiki chatgpt import`: a ChatGPT data export's conversations as draft source pages
//! (reference §11.7), with the original's triage: active-branch reconstruction, risk level,
//! labels and preference signals.
//!
//! Matching follows the original's JavaScript regular expressions: case-insensitive, with ASCII
//! word characters and word boundaries (`\w`, `\b` of a JavaScript pattern without the `u`
//! flag).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;
use serde_json::Value as Json;
use yaml_serde::Value;

use wiki_apply::edit::FileChange;
use wiki_apply::error::Result;
use wiki_apply::files::VaultFiles;
use wiki_apply::session::Batch;

use crate::problem::Problem;
use crate::render::{self, s};

/// Where an export's conversations are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportPaths {
    /// The path given, absolute.
    pub export_path: PathBuf,
    /// `conversations.json` (the path itself when it ends in `.json`).
    pub conversations_path: PathBuf,
}

/// The export path of `arg` (relative to `cwd`).
pub fn export_paths(arg: &Path, cwd: &Path) -> ExportPaths {
    let export_path = crate::guard::absolute(arg, cwd);
    let conversations_path = if export_path.to_string_lossy().ends_with(".json") {
        export_path.clone()
    } else {
        export_path.join("conversations.json")
    };
    ExportPaths {
        export_path,
        conversations_path,
    }
}

/// The largest ChatGPT export read: `conversations.json` of years of daily use is a few hundred
/// MB; it is parsed whole, so it must fit in memory several times over.
pub const EXPORT_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("ChatGPT exports", 1 << 30);

/// The conversation objects of an export file: a top-level array, or the first array-valued
/// property of a top-level object. Errors say `path[:line]: what is wrong`.
pub fn load(path: &Path) -> std::result::Result<Vec<serde_json::Map<String, Json>>, Problem> {
    let shown = path.display().to_string();
    let bytes = wiki_cli::read::read_bounded(path, EXPORT_LIMIT)
        .map_err(|e| Problem::new(&shown, e.to_string()))?;
    let text = crate::problem::utf8(&shown, &bytes)?;
    let parsed: Json = serde_json::from_str(text).map_err(|e| {
        Problem::at(
            &shown,
            e.line(),
            format!("invalid JSON (column {}): {e}", e.column()),
        )
    })?;
    let list = match parsed {
        Json::Array(items) => Some(items),
        Json::Object(map) => map.into_iter().find_map(|(_, v)| match v {
            Json::Array(items) => Some(items),
            _ => None,
        }),
        _ => None,
    };
    let Some(list) = list else {
        return Err(Problem::bare(
            &shown,
            format!("Unrecognized ChatGPT conversations export format: {shown}"),
        ));
    };
    Ok(list
        .into_iter()
        .filter_map(|v| match v {
            Json::Object(m) => Some(m),
            _ => None,
        })
        .collect())
}

/// A rule: the regular expression of a family.
type Rule = fn() -> &'static Regex;

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    // The patterns are literals of this module: compiling them cannot fail.
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| unreachable!("{e}")))
}

/// A JavaScript `/\b(...)\b/i` pattern: ASCII word boundaries, case-insensitive.
macro_rules! js_words {
    ($name:ident, $alts:literal) => {
        fn $name() -> &'static Regex {
            static CELL: OnceLock<Regex> = OnceLock::new();
            re(&CELL, concat!(r"(?i)(?-u:\b)(?:", $alts, r")(?-u:\b)"))
        }
    };
}

js_words!(
    preference_re,
    r"prefer|prefers|preference|want|wants|need|needs|avoid|avoids|hate|hates|love|loves|default to|should default to|always use|don't want|does not want|likes|dislikes"
);
js_words!(
    risk_relationships,
    r"relationship|dating|breakup|jealous|sex|intimacy|partner|apology|trust|boyfriend|girlfriend|husband|wife"
);
js_words!(
    risk_health,
    r"supplement|medication|diagnosis|symptom|therapy|depression|anxiety|mri|migraine|injury|pain|cortisol|sleep"
);
js_words!(
    risk_legal_tax,
    r"contract|tax|legal|law|lawsuit|visa|immigration|license|insurance|claim|non-residence|residency"
);
js_words!(
    risk_finance,
    r"investment|invest|portfolio|dividend|yield|coupon|valuation|mortgage|loan|crypto|covered call|call option|put option"
);
js_words!(risk_drugs, r"vape|weed|cannabis|nicotine|opioid|ketamine");
js_words!(
    risk_career,
    r"career|job|salary|interview|offer|resume|cover letter"
);
js_words!(
    l_translation,
    r"translate|translation|traduc(?-u:\w)*|traducc(?-u:\w)*|traduç(?-u:\w)*|traducci[oó]n|traduccio|traducció|traduzione"
);
js_words!(
    l_learning,
    r"anki|flashcards?|grammar|conjugat(?-u:\w)*|declension|pronunciation|vocab(?:ular(?:y|io))?|lesson|tutor|teacher|jlpt|kanji|hiragana|katakana|study|learn|practice"
);
js_words!(
    l_language,
    r"japanese|portuguese|catalan|castellano|espa[nñ]ol|franc[eé]s|french|italian|german|spanish"
);
js_words!(l_study, r"learn|study|practice|lesson|tutor|grammar");
js_words!(
    l_travel,
    r"hike|trail|hotel|flight|trip|travel|airport|itinerary|booking|airbnb|train|stay"
);
js_words!(
    l_cooking,
    r"recipe|cook|cooking|bread|sourdough|pizza|espresso|coffee|mousse|cast iron|meatballs?"
);
js_words!(
    l_gardening,
    r"garden|orchard|plant|soil|compost|agroforestry|permaculture|mulch|beds?|irrigation|seeds?"
);
js_words!(
    l_relationships,
    r"dating|relationship|partner|jealous|breakup|trust"
);
js_words!(
    l_finance,
    r"investment|invest|portfolio|dividend|yield|coupon|valuation|return|mortgage|loan|kraken|crypto|covered call|call option|put option|option chain|bond|stocks?"
);
js_words!(
    l_legal,
    r"contract|mou|tax|impuesto|legal|law|lawsuit|visa|immigration|license|licencia|dispute|claim|insurance|non-residence|residency"
);
js_words!(
    l_health,
    r"supplement|medication|diagnos(?:is|e)|symptom|therapy|depress(?:ion|ed)|anxiet(?:y|ies)|mri|migraine|injur(?:y|ies)|pain|cortisol|sleep|dentist|dermatolog(?:ist|y)"
);
js_words!(
    l_admin,
    r"book (?:an )?appointment|rebook|open (?:a )?new account|driving test|exam|gestor(?:a)?|itv"
);
js_words!(
    l_robotics,
    r"frc|robot|robotics|wpilib|limelight|chiefdelphi"
);
js_words!(
    l_software,
    r"docker|git|python|node|npm|pip|sql|postgres|api|bug|stack trace|permission denied"
);
js_words!(l_career, r"job|interview|cover letter|resume|cv");
js_words!(
    l_home,
    r"wifi|wi-fi|starlink|router|mesh|network|orbi|milesight|coverage"
);
js_words!(
    l_vehicles,
    r"p38|range rover|porsche|bmw|bobcat|excavator|auger|trailer|chainsaw|stihl"
);

/// `level` and `reasons` of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Risk {
    /// `high`, `medium` or `low`.
    pub level: &'static str,
    /// Matched rule families.
    pub reasons: Vec<&'static str>,
}

/// Risk from the title and a sample of user text.
pub fn infer_risk(title: &str, sample: &str) -> Risk {
    let blob = format!("{title}\n{sample}").to_lowercase();
    let rules: [(&'static str, Rule); 5] = [
        ("relationships", risk_relationships),
        ("health", risk_health),
        ("legal_tax", risk_legal_tax),
        ("finance", risk_finance),
        ("drugs", risk_drugs),
    ];
    let reasons: Vec<&'static str> = rules
        .iter()
        .filter(|(_, r)| r().is_match(&blob))
        .map(|(l, _)| *l)
        .collect();
    if !reasons.is_empty() {
        return Risk {
            level: "high",
            reasons,
        };
    }
    if risk_career().is_match(&blob) {
        return Risk {
            level: "medium",
            reasons: vec!["work_career"],
        };
    }
    Risk {
        level: "low",
        reasons: Vec::new(),
    }
}

/// Labels from the title and a sample of user text.
pub fn infer_labels(title: &str, sample: &str) -> Vec<String> {
    let blob = format!("{title}\n{sample}").to_lowercase();
    let mut labels: Vec<&str> = vec!["domain/personal"];
    let mut add = |items: &[&'static str]| {
        for i in items {
            if !labels.contains(i) {
                labels.push(i);
            }
        }
    };
    let m = |r: Rule| r().is_match(&blob);
    if m(l_translation) {
        add(&["topic/translation"]);
    }
    if m(l_learning) || (m(l_language) && m(l_study)) {
        add(&["area/language-learning", "topic/language-learning"]);
    }
    let families: [(Rule, [&'static str; 2]); 6] = [
        (l_travel, ["area/travel", "topic/travel"]),
        (l_cooking, ["area/cooking", "topic/cooking"]),
        (l_gardening, ["area/gardening", "topic/gardening"]),
        (
            l_relationships,
            ["area/relationships", "topic/relationships"],
        ),
        (l_finance, ["area/finance", "topic/finance"]),
        (l_legal, ["area/legal-tax", "topic/legal-tax"]),
    ];
    for (r, l) in families {
        if m(r) {
            add(&l);
        }
    }
    if m(l_health) {
        add(&["area/health", "topic/health"]);
    }
    if m(l_admin) {
        add(&["area/life-admin", "topic/life-admin"]);
    }
    if m(l_robotics) {
        add(&["area/work", "topic/robotics"]);
    } else if m(l_software) {
        add(&["area/work", "topic/software"]);
    } else if m(l_career) {
        add(&["area/work", "topic/career"]);
    }
    if m(l_home) {
        add(&["area/home", "topic/home-infrastructure"]);
    }
    if m(l_vehicles) {
        add(&["area/vehicles", "topic/vehicles"]);
    }
    if !labels.iter().any(|l| l.starts_with("area/")) {
        labels.push("area/other");
    }
    labels.into_iter().map(str::to_string).collect()
}

fn normalize_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Up to ten distinct lines of the first 25 user messages that state a preference.
pub fn preference_signals(user_texts: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for text in user_texts.iter().take(25) {
        for raw in text.lines() {
            let line = normalize_ws(raw);
            if line.is_empty() || !preference_re().is_match(&line) {
                continue;
            }
            if seen.insert(line.to_lowercase()) {
                out.push(line);
                if out.len() >= 10 {
                    return out;
                }
            }
        }
    }
    out
}

/// A message part cleaned of asset pointers and JSON blobs (reduced to their `"text"`).
fn clean(text: &str) -> String {
    static TEXT: OnceLock<Regex> = OnceLock::new();
    let t = text.trim();
    if t.is_empty() {
        return String::new();
    }
    let chars = t.encode_utf16().count();
    if (t.contains("asset_pointer") || t.contains("dalle") || t.contains("file_service"))
        && chars > 40
    {
        return String::new();
    }
    if t.starts_with('{') && chars > 80 && (t.contains(':') || t.contains("content_type")) {
        let caps = re(&TEXT, r#"(?s)["']text["']\s*:\s*(?:"(.+?)"|'(.+?)')"#).captures(t);
        return caps
            .and_then(|c| c.get(1).or_else(|| c.get(2)))
            .map(|m| normalize_ws(m.as_str()))
            .unwrap_or_default();
    }
    t.to_string()
}

fn message_text(message: &serde_json::Map<String, Json>) -> String {
    if let Some(Json::Object(content)) = message.get("content") {
        if let Some(Json::Array(parts)) = content.get("parts") {
            let mut collected: Vec<String> = Vec::new();
            for part in parts {
                match part {
                    Json::String(s) => {
                        let c = clean(s);
                        if !c.is_empty() {
                            collected.push(c);
                        }
                    }
                    Json::Object(p) => {
                        if let Some(Json::String(t)) = p.get("text")
                            && !t.trim().is_empty()
                        {
                            collected.push(t.trim().to_string());
                        }
                    }
                    _ => {}
                }
            }
            return collected.join("\n").trim().to_string();
        }
        if let Some(Json::String(t)) = content.get("text") {
            return clean(t);
        }
    }
    match message.get("text") {
        Some(Json::String(t)) => clean(t),
        _ => String::new(),
    }
}

/// One message of the active branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// `user`, `assistant`, `tool`, … (`unknown` without an author role).
    pub role: String,
    /// Its text.
    pub text: String,
}

/// The active branch: from `current_node` up the `parent` links (a cycle ends the walk), the
/// messages with text, oldest first.
pub fn active_branch(conv: &serde_json::Map<String, Json>) -> Vec<Message> {
    let Some(Json::Object(mapping)) = conv.get("mapping") else {
        return Vec::new();
    };
    let mut node = conv.get("current_node").and_then(Json::as_str);
    let mut seen = std::collections::HashSet::new();
    let mut chain = Vec::new();
    while let Some(id) = node {
        if !seen.insert(id) {
            break;
        }
        let Some(Json::Object(n)) = mapping.get(id) else {
            break;
        };
        if let Some(Json::Object(message)) = n.get("message") {
            let role = message
                .get("author")
                .and_then(|a| a.get("role"))
                .and_then(Json::as_str)
                .unwrap_or("unknown");
            let text = message_text(message);
            if !text.is_empty() {
                chain.push(Message {
                    role: role.to_string(),
                    text,
                });
            }
        }
        node = n.get("parent").and_then(Json::as_str);
    }
    chain.reverse();
    chain
}

/// `create_time`/`update_time` (Unix seconds, number or numeric string) as an ISO timestamp.
fn iso_from_unix(v: Option<&Json>) -> Option<String> {
    let secs = match v? {
        Json::Number(n) => n.as_f64()?,
        Json::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                0.0
            } else {
                t.parse::<f64>().ok()?
            }
        }
        _ => return None,
    };
    let ms = (secs * 1000.0).trunc();
    if !ms.is_finite() || ms.abs() > 8.64e15 {
        return None;
    }
    jiff::Timestamp::from_millisecond(ms as i64)
        .ok()
        .map(wiki_cli::iso_millis)
}

/// A conversation ready to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// `conversation_id`.
    pub conversation_id: String,
    /// `title`, else `Untitled conversation`.
    pub title: String,
    /// `create_time` as ISO.
    pub created_at: Option<String>,
    /// `update_time` (else `create_time`) as ISO.
    pub updated_at: Option<String>,
    /// The export file.
    pub source_path: String,
    /// `source.chatgpt.<slug>`.
    pub page_id: String,
    /// `sources/chatgpt-<date>-<slug>.md`.
    pub page_path: String,
    /// Labels.
    pub labels: Vec<String>,
    /// Risk.
    pub risk: Risk,
    /// User messages on the active branch.
    pub user_count: usize,
    /// Assistant messages on the active branch.
    pub assistant_count: usize,
    /// Preference signals (low risk only).
    pub signals: Vec<String>,
    /// First line of the first user message.
    pub first_user_line: Option<String>,
    /// First line of the last user message.
    pub last_user_line: Option<String>,
    /// The active branch.
    pub transcript: Vec<Message>,
}

/// The record of a conversation (`None` without a `conversation_id`).
pub fn record(conv: &serde_json::Map<String, Json>, source_path: &str) -> Option<Record> {
    let conversation_id = conv
        .get("conversation_id")
        .and_then(Json::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())?
        .to_string();
    let title = conv
        .get("title")
        .and_then(Json::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or("Untitled conversation")
        .to_string();
    let transcript = active_branch(conv);
    let user: Vec<String> = transcript
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| m.text.clone())
        .collect();
    let assistant_count = transcript.iter().filter(|m| m.role == "assistant").count();
    let sample = user.iter().take(6).cloned().collect::<Vec<_>>().join("\n");
    let risk = infer_risk(&title, &sample);
    let labels = infer_labels(&title, &sample);
    let created_at = iso_from_unix(conv.get("create_time"));
    let updated_at = iso_from_unix(conv.get("update_time")).or_else(|| created_at.clone());
    let slug: String = conversation_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_lowercase();
    let page_id = if slug.is_empty() {
        format!(
            "source.chatgpt.{}",
            &wiki_parse::slug::sha1_hex(&conversation_id)[..12]
        )
    } else {
        format!("source.chatgpt.{slug}")
    };
    let date = created_at.as_deref().map_or("undated", |c| &c[..10]);
    let name = if slug.is_empty() {
        "export"
    } else {
        slug.as_str()
    };
    let first_line = |t: &String| t.lines().next().unwrap_or("").trim().to_string();
    Some(Record {
        page_path: format!("sources/chatgpt-{date}-{name}.md"),
        page_id,
        conversation_id,
        title,
        created_at,
        updated_at,
        source_path: source_path.to_string(),
        labels,
        signals: if risk.level == "low" {
            preference_signals(&user)
        } else {
            Vec::new()
        },
        risk,
        user_count: user.len(),
        assistant_count,
        first_user_line: user.first().map(first_line).filter(|l| !l.is_empty()),
        last_user_line: user.last().map(first_line).filter(|l| !l.is_empty()),
        transcript,
    })
}

/// The page of a conversation.
pub fn render_page(r: &Record) -> String {
    let mut fm = render::mapping([
        ("pageType", s("source")),
        ("id", s(&r.page_id)),
        ("title", s(&format!("ChatGPT Export: {}", r.title))),
        ("sourceType", s("chatgpt-export")),
        ("sourceSystem", s("chatgpt")),
        ("sourcePath", s(&r.source_path)),
        ("conversationId", s(&r.conversation_id)),
        ("riskLevel", s(r.risk.level)),
        ("riskReasons", render::list(r.risk.reasons.iter().copied())),
        ("labels", render::list(r.labels.iter().map(String::as_str))),
        ("status", s("draft")),
    ]);
    for (k, v) in [("createdAt", &r.created_at), ("updatedAt", &r.updated_at)] {
        if let Some(v) = v {
            fm.insert(s(k), Value::String(v.clone()));
        }
    }
    let mut lines: Vec<String> = vec![
        format!("# ChatGPT Export: {}", r.title),
        String::new(),
        "## Source".into(),
        format!("- Conversation id: `{}`", r.conversation_id),
        format!("- Export file: `{}`", r.source_path),
    ];
    lines.extend(r.created_at.as_ref().map(|c| format!("- Created: {c}")));
    lines.extend(r.updated_at.as_ref().map(|u| format!("- Updated: {u}")));
    lines.extend([
        String::new(),
        "## Auto Triage".into(),
        format!("- Risk level: `{}`", r.risk.level),
        format!("- Labels: {}", r.labels.join(", ")),
        format!("- Active-branch messages: {}", r.transcript.len()),
        String::new(),
        "## Auto Digest".into(),
    ]);
    if r.risk.level == "low" {
        lines.push(format!("- User messages: {}", r.user_count));
        lines.push(format!("- Assistant messages: {}", r.assistant_count));
        lines.extend(
            r.first_user_line
                .as_ref()
                .map(|l| format!("- First user line: {l}")),
        );
        lines.extend(
            r.last_user_line
                .as_ref()
                .map(|l| format!("- Last user line: {l}")),
        );
        if r.signals.is_empty() {
            lines.push("- Preference signals: none detected".into());
        } else {
            lines.push("- Preference signals:".into());
            lines.extend(r.signals.iter().map(|l| format!("  - {l}")));
        }
    } else {
        lines.push(
            "- Auto digest withheld from durable-candidate generation until reviewed.".into(),
        );
        lines.push(format!(
            "- Risk reasons: {}",
            if r.risk.reasons.is_empty() {
                "none recorded".to_string()
            } else {
                r.risk.reasons.join(", ")
            }
        ));
    }
    lines.extend([
        String::new(),
        "## Active Branch Transcript".into(),
        transcript(&r.transcript),
    ]);
    lines.extend([
        String::new(),
        "## Notes".into(),
        wiki_parse::markers::HUMAN_START.into(),
        wiki_parse::markers::HUMAN_END.into(),
        String::new(),
    ]);
    render::page(&fm, &lines.join("\n"))
}

fn transcript(messages: &[Message]) -> String {
    if messages.is_empty() {
        return "_No active-branch transcript could be reconstructed._".into();
    }
    let mut parts: Vec<String> = Vec::new();
    for m in messages {
        let mut chars = m.role.chars();
        let role = match chars.next() {
            Some(c) => format!("{}{}", c.to_uppercase(), chars.as_str()),
            None => "U".to_string(),
        };
        parts.extend([
            format!("### {role}"),
            String::new(),
            m.text.clone(),
            String::new(),
        ]);
    }
    parts.join("\n").trim().to_string()
}

/// What the import does with one conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    /// `conversation_id`.
    pub conversation_id: String,
    /// The title.
    pub title: String,
    /// The page.
    pub page_path: String,
    /// `create`, `update` or `skip`.
    pub operation: &'static str,
    /// Risk level.
    pub risk_level: &'static str,
    /// Labels.
    pub labels: Vec<String>,
    /// User messages.
    pub user_message_count: usize,
    /// Assistant messages.
    pub assistant_message_count: usize,
    /// Preference signals.
    pub preference_signals: Vec<String>,
}

/// A page the import replaced, with what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The page.
    pub path: String,
    /// Its content before.
    pub before: Vec<u8>,
}

/// The batch that writes the conversations' pages.
pub struct ImportBatch<'a> {
    records: &'a [Record],
    worktree: Option<&'a Path>,
    /// The run id (`Wiki-Run` trailer).
    pub run_id: Option<String>,
    /// Set by `prepare`: whether anything is created or updated.
    pub refresh: &'a std::cell::Cell<bool>,
    /// One action per record (after `prepare`).
    pub actions: Vec<Action>,
    /// Pages created.
    pub created: Vec<String>,
    /// Pages updated, with their previous content.
    pub updated: Vec<Replaced>,
    /// Pages that could not be written.
    pub problems: Vec<Problem>,
}

impl<'a> ImportBatch<'a> {
    /// A batch for `records`.
    pub fn new(
        records: &'a [Record],
        worktree: Option<&'a Path>,
        run_id: Option<String>,
        refresh: &'a std::cell::Cell<bool>,
    ) -> ImportBatch<'a> {
        ImportBatch {
            records,
            worktree,
            run_id,
            refresh,
            actions: Vec::new(),
            created: Vec::new(),
            updated: Vec::new(),
            problems: Vec::new(),
        }
    }
}

impl Batch for ImportBatch<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>> {
        self.actions.clear();
        self.created.clear();
        self.updated.clear();
        self.problems.clear();
        let mut changes = Vec::new();
        for r in self.records {
            if let Some(vault) = self.worktree
                && let Err(m) =
                    crate::guard::check_writable(vault, &r.page_path, "imported source page")
            {
                self.problems
                    .push(Problem::new(r.conversation_id.clone(), m));
                continue;
            }
            let old = files.read(&r.page_path)?.map(Cow::into_owned);
            let old_text = old.as_deref().and_then(|b| std::str::from_utf8(b).ok());
            let page = render::keep_existing_blocks(&render_page(r), old_text);
            let operation = match &old {
                Some(_) if old_text == Some(page.as_str()) => "skip",
                Some(before) => {
                    self.updated.push(Replaced {
                        path: r.page_path.clone(),
                        before: before.clone(),
                    });
                    "update"
                }
                None => {
                    self.created.push(r.page_path.clone());
                    "create"
                }
            };
            if operation != "skip" {
                changes.push(FileChange {
                    path: r.page_path.clone(),
                    before: old,
                    after: Some(page.into_bytes()),
                    blob: None,
                });
            }
            self.actions.push(Action {
                conversation_id: r.conversation_id.clone(),
                title: r.title.clone(),
                page_path: r.page_path.clone(),
                operation,
                risk_level: r.risk.level,
                labels: r.labels.clone(),
                user_message_count: r.user_count,
                assistant_message_count: r.assistant_count,
                preference_signals: r.signals.clone(),
            });
        }
        self.refresh.set(!changes.is_empty());
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>) {
        let run = self.run_id.clone().unwrap_or_default();
        let subject = format!(
            "wiki chatgpt import {run}: {} new, {} updated",
            self.created.len(),
            self.updated.len()
        );
        let changes: Vec<FileChange> = self
            .created
            .iter()
            .chain(self.updated.iter().map(|u| &u.path))
            .map(|p| FileChange {
                path: p.clone(),
                before: None,
                after: None,
                blob: None,
            })
            .collect();
        let extra = [("Wiki-Run".to_string(), run)];
        crate::commit::message("chatgpt-import", subject, &changes, compiled, &extra, agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(v: Json) -> serde_json::Map<String, Json> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn active_branch_follows_current_node_and_survives_cycles() {
        let c = conv(serde_json::json!({
            "conversation_id": "abc-123",
            "current_node": "n3",
            "mapping": {
                "n1": {"message": {"author": {"role": "user"}, "content": {"parts": ["Hi"]}}, "parent": "n3"},
                "n2": {"message": {"author": {"role": "assistant"}, "content": {"parts": ["other branch"]}}, "parent": "n1"},
                "n3": {"message": {"author": {"role": "assistant"}, "content": {"parts": ["Hello", {"text": " more "}]}}, "parent": "n1"},
            }
        }));
        let b = active_branch(&c);
        assert_eq!(
            b,
            vec![
                Message {
                    role: "user".into(),
                    text: "Hi".into()
                },
                Message {
                    role: "assistant".into(),
                    text: "Hello\nmore".into()
                },
            ]
        );
    }

    #[test]
    fn triage_like_the_original() {
        assert_eq!(infer_risk("Tax return", "").reasons, ["legal_tax"]);
        assert_eq!(infer_risk("x", "my job offer").level, "medium");
        assert_eq!(infer_risk("Painting", "").level, "low");
        assert_eq!(
            infer_labels("Sourdough", "I prefer rye"),
            ["domain/personal", "area/cooking", "topic/cooking"]
        );
        assert_eq!(infer_labels("hello", ""), ["domain/personal", "area/other"]);
        assert_eq!(
            infer_labels("git bug", "a python job"),
            ["domain/personal", "area/work", "topic/software"]
        );
        assert_eq!(
            preference_signals(&["I prefer  tea\nno\nI PREFER tea".into()]),
            ["I prefer tea"]
        );
        assert_eq!(
            clean(&format!(
                "{{\"content_type\": \"text\", \"text\": \"hi  there\", {}}}",
                "x".repeat(80)
            )),
            "hi there"
        );
    }

    #[test]
    fn records_and_pages() {
        let c = conv(serde_json::json!({
            "conversation_id": "AB-12_cd", "title": " Trip ", "create_time": 1775390400.5,
            "current_node": "a", "mapping": {"a": {"message": {"author": {"role": "user"}, "content": {"parts": ["Plan a trip\nsecond"]}}}}
        }));
        let r = record(&c, "/x/conversations.json").unwrap();
        assert_eq!(r.page_path, "sources/chatgpt-2026-04-05-ab12cd.md");
        assert_eq!(r.page_id, "source.chatgpt.ab12cd");
        assert_eq!(r.created_at.as_deref(), Some("2026-04-05T12:00:00.500Z"));
        assert_eq!(r.updated_at, r.created_at);
        let page = render_page(&r);
        assert!(
            page.contains(
                "\n## Active Branch Transcript\n### User\n\nPlan a trip\nsecond\n\n## Notes\n"
            ),
            "{page}"
        );
        assert!(page.contains("- First user line: Plan a trip\n- Last user line: Plan a trip\n- Preference signals: none detected\n"), "{page}");
        assert!(record(&conv(serde_json::json!({"title": "x"})), "p").is_none());
    }
}
