//! `wiki config show`: the effective configuration and where each value came from.

use serde_json::{Value, json};
use wiki_cli::config::{self, Setting, Source, WikiConfig, schema};
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

/// The OpenClaw configuration the wiki tools read (reference §11.1).
///
/// The memory-wiki plugin config lives under `plugins.entries.memory-wiki.config` of OpenClaw's
/// JSON5 config file ($OPENCLAW_CONFIG_PATH, else $OPENCLAW_STATE_DIR/openclaw.json, else
/// ~/.openclaw/openclaw.json). It is validated strictly: an unknown key, a wrong type or a value
/// outside its set is an error naming the key path (exit 2).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: ConfigCommand,
}

/// `wiki config` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ConfigCommand {
    /// Print the effective config: the file, the vault and agent in use, every plugin key with
    /// its value and its source (default, file, environment, flag, detected), and the agents'
    /// workspaces. Text by default; `--json` prints one JSON document.
    Show,
}

/// One row of the report.
struct Row {
    key: String,
    value: Value,
    source: Source,
}

/// Run `wiki config`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let ConfigCommand::Show = args.command;
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let cfg = config::load()?;
    let vault = global.vault_setting()?;
    let agent = global.agent_setting(&cfg)?;
    let rows = plugin_rows(&cfg);
    let mut out = Output::new();
    if format == Format::Json {
        out.json(&report_json(&cfg, &vault, &agent, &rows))?;
    } else {
        out.text(&report_text(&cfg, &vault, &agent, &rows))?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// Every leaf key of the plugin config with its effective value and source.
fn plugin_rows(cfg: &WikiConfig) -> Vec<Row> {
    schema::PLUGIN_KEYS
        .iter()
        .filter(|k| k.kind != schema::Kind::Object)
        .map(|k| {
            if k.path == "vault.path" {
                let p = cfg.vault_path_setting();
                return Row {
                    key: k.path.into(),
                    value: Value::String(p.value.display().to_string()),
                    source: p.source,
                };
            }
            Row {
                key: k.path.into(),
                value: cfg.settings.value_of(k.path).unwrap_or(Value::Null),
                source: cfg.source_of(k.path),
            }
        })
        .collect()
}

fn file_line(cfg: &WikiConfig) -> (String, bool, Source) {
    let file = cfg.file.clone().unwrap_or_else(config::config_path_setting);
    (
        file.value.display().to_string(),
        cfg.source.is_some(),
        file.source,
    )
}

fn source_json(source: &Source) -> Value {
    let mut v = json!({ "source": source.kind });
    if let Some(via) = &source.via {
        v["via"] = json!(via);
    }
    v
}

fn with_source(mut base: Value, source: &Source) -> Value {
    if let (Some(obj), Value::Object(src)) = (base.as_object_mut(), source_json(source)) {
        obj.extend(src);
    }
    base
}

fn report_json(
    cfg: &WikiConfig,
    vault: &Setting<std::path::PathBuf>,
    agent: &Setting<Option<String>>,
    rows: &[Row],
) -> Value {
    let (path, found, file_source) = file_line(cfg);
    let mut effective = serde_json::to_value(&cfg.settings).unwrap_or(Value::Null);
    effective["vault"]["path"] = json!(cfg.vault_path_setting().value.display().to_string());
    let settings: Vec<Value> = rows
        .iter()
        .map(|r| with_source(json!({"key": r.key, "value": r.value}), &r.source))
        .collect();
    json!({
        "file": with_source(json!({"path": path, "found": found}), &file_source),
        "vault": with_source(json!({"path": vault.value.display().to_string()}), &vault.source),
        "agent": with_source(json!({"id": agent.value}), &agent.source),
        "config": effective,
        "settings": settings,
        "agents": agents_json(cfg),
    })
}

/// The configured agents (or the implicit `main`) with their workspaces.
fn agent_ids(cfg: &WikiConfig) -> Vec<(String, bool)> {
    if cfg.agent_entries.is_empty() {
        return vec![("main".into(), true)];
    }
    let default = cfg.default_agent();
    cfg.agent_entries
        .iter()
        .map(|a| (a.id.clone(), default.as_deref() == Some(a.id.as_str())))
        .collect()
}

fn agents_json(cfg: &WikiConfig) -> Vec<Value> {
    agent_ids(cfg)
        .into_iter()
        .map(|(id, default)| {
            let ws = cfg.workspace(Some(&id));
            let mut v = json!({
                "id": id,
                "configured": cfg.agent(&id).is_some(),
                "default": default,
                "workspace": ws.value.display().to_string(),
                "workspaceSource": ws.source.kind,
            });
            if let Some(via) = ws.source.via {
                v["workspaceVia"] = json!(via);
            }
            v
        })
        .collect()
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "(unset)".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn report_text(
    cfg: &WikiConfig,
    vault: &Setting<std::path::PathBuf>,
    agent: &Setting<Option<String>>,
    rows: &[Row],
) -> String {
    let (path, found, file_source) = file_line(cfg);
    let mut s = String::new();
    let state = if found {
        "found"
    } else {
        "not found, defaults apply"
    };
    match file_source.kind {
        config::SourceKind::Default => s.push_str(&format!("Config file: {path} ({state})\n")),
        _ => s.push_str(&format!("Config file: {path} ({state}; {file_source})\n")),
    }
    s.push_str(&format!(
        "Vault: {} ({})\n",
        vault.value.display(),
        vault.source
    ));
    let agent_text = agent
        .value
        .clone()
        .unwrap_or_else(|| "none (the checked-out branch)".into());
    s.push_str(&format!("Agent: {agent_text} ({})\n", agent.source));
    s.push_str(&format!("\n{}:\n", schema::PLUGIN_CONFIG_PATH));
    let key_width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
    let value_width = rows
        .iter()
        .map(|r| value_text(&r.value).chars().count())
        .filter(|&w| w <= 40)
        .max()
        .unwrap_or(0);
    for r in rows {
        s.push_str(&format!(
            "  {:key_width$}  {:value_width$}  {}\n",
            r.key,
            value_text(&r.value),
            r.source
        ));
    }
    s.push_str("\nAgents:\n");
    for (id, default) in agent_ids(cfg) {
        let ws = cfg.workspace(Some(&id));
        let mark = if default { " (default)" } else { "" };
        s.push_str(&format!(
            "  {id}{mark}: workspace {} ({})\n",
            ws.value.display(),
            ws.source
        ));
    }
    s
}
