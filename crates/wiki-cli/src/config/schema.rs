//! The strict schema of `plugins.entries.memory-wiki.config` (reference §11.1) and the checks of
//! the few parts of the rest of the OpenClaw config the tools read.
//!
//! The schema is one table ([`PLUGIN_KEYS`]): every key path, its type and its default as shown
//! by `wiki config show`. Validation walks the JSON value against it, so an unknown key, a value
//! of the wrong type or an enum value outside its set is an error naming the full key path, as
//! the original's strict TypeBox schema refuses such a config.

use serde_json::Value;

/// Where the plugin's own config lives in the OpenClaw config.
pub const PLUGIN_CONFIG_PATH: &str = "plugins.entries.memory-wiki.config";

/// A value's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A nested object whose keys are in the table.
    Object,
    /// `true` or `false`.
    Bool,
    /// Any string.
    Str,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// An integer no smaller than `min`.
    Int {
        /// The smallest accepted value.
        min: i64,
    },
    /// A list of strings.
    StrList,
}

/// One key of the plugin config.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// Dotted path below [`PLUGIN_CONFIG_PATH`] (`search.corpus`).
    pub path: &'static str,
    /// Its type.
    pub kind: Kind,
}

const fn key(path: &'static str, kind: Kind) -> Key {
    Key { path, kind }
}

/// `vaultMode` values.
pub const VAULT_MODES: &[&str] = &["isolated", "bridge", "unsafe-local"];
/// `vault.scope` values.
pub const SCOPES: &[&str] = &["global", "agent"];
/// `vault.renderMode` values.
pub const RENDER_MODES: &[&str] = &["native", "obsidian"];
/// `bridge.ownership` values.
pub const OWNERSHIPS: &[&str] = &["sandboxed-only", "owner", "delegation"];
/// `search.backend` values.
pub const BACKENDS: &[&str] = &["shared", "local"];
/// `search.corpus` values.
pub const CORPORA: &[&str] = &["wiki", "memory", "all"];

/// Every key of `plugins.entries.memory-wiki.config`, parents before children, in the order
/// of the reference's table.
pub const PLUGIN_KEYS: &[Key] = &[
    key("vaultMode", Kind::Enum(VAULT_MODES)),
    key("vault", Kind::Object),
    key("vault.scope", Kind::Enum(SCOPES)),
    key("vault.path", Kind::Str),
    key("vault.renderMode", Kind::Enum(RENDER_MODES)),
    key("obsidian", Kind::Object),
    key("obsidian.enabled", Kind::Bool),
    key("obsidian.useOfficialCli", Kind::Bool),
    key("obsidian.vaultName", Kind::Str),
    key("obsidian.openAfterWrites", Kind::Bool),
    key("bridge", Kind::Object),
    key("bridge.enabled", Kind::Bool),
    key("bridge.readMemoryArtifacts", Kind::Bool),
    key("bridge.indexDreamReports", Kind::Bool),
    key("bridge.indexDailyNotes", Kind::Bool),
    key("bridge.indexMemoryRoot", Kind::Bool),
    key("bridge.followMemoryEvents", Kind::Bool),
    key("bridge.ownership", Kind::Enum(OWNERSHIPS)),
    key("unsafeLocal", Kind::Object),
    key("unsafeLocal.allowPrivateMemoryCoreAccess", Kind::Bool),
    key("unsafeLocal.paths", Kind::StrList),
    key("ingest", Kind::Object),
    key("ingest.autoCompile", Kind::Bool),
    key("ingest.maxConcurrentJobs", Kind::Int { min: 1 }),
    key("ingest.allowUrlIngest", Kind::Bool),
    key("search", Kind::Object),
    key("search.backend", Kind::Enum(BACKENDS)),
    key("search.corpus", Kind::Enum(CORPORA)),
    key("context", Kind::Object),
    key("context.includeCompiledDigestPrompt", Kind::Bool),
    key("render", Kind::Object),
    key("render.preserveHumanBlocks", Kind::Bool),
    key("render.createBacklinks", Kind::Bool),
    key("render.createDashboards", Kind::Bool),
];

/// The schema entry of a dotted plugin key.
pub fn plugin_key(path: &str) -> Option<&'static Key> {
    PLUGIN_KEYS.iter().find(|k| k.path == path)
}

/// A short rendering of a found value for error messages.
pub fn found(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// `<prefix>.<rel>` (or `<prefix>` when `rel` is empty).
pub fn join(prefix: &str, rel: &str) -> String {
    match (prefix.is_empty(), rel.is_empty()) {
        (_, true) => prefix.to_string(),
        (true, false) => rel.to_string(),
        (false, false) => format!("{prefix}.{rel}"),
    }
}

/// What a value of `kind` should be, for messages.
pub fn expected(kind: Kind) -> String {
    match kind {
        Kind::Object => "an object".into(),
        Kind::Bool => "true or false".into(),
        Kind::Str => "a string".into(),
        Kind::Enum(values) => format!("one of {}", values.join(", ")),
        Kind::Int { min } => format!("an integer >= {min}"),
        Kind::StrList => "a list of strings".into(),
    }
}

/// Check one value against its kind; `at` is its full key path. Objects are checked by
/// [`validate_plugin`] (their keys), not here.
pub fn check_kind(value: &Value, kind: Kind, at: &str) -> Result<(), String> {
    let ok = match kind {
        Kind::Object => value.is_object(),
        Kind::Bool => value.is_boolean(),
        Kind::Str => value.is_string(),
        Kind::Enum(values) => value.as_str().is_some_and(|s| values.contains(&s)),
        Kind::Int { min } => as_int(value).is_some_and(|n| n >= min),
        Kind::StrList => {
            let Some(items) = value.as_array() else {
                return Err(format!(
                    "{at}: expected {} (found {})",
                    expected(kind),
                    found(value)
                ));
            };
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    return Err(format!(
                        "{at}[{i}]: expected a string (found {})",
                        found(item)
                    ));
                }
            }
            true
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{at}: expected {} (found {})",
            expected(kind),
            found(value)
        ))
    }
}

/// An integer value (JSON5 `2.0` is the integer 2, as in JavaScript).
pub fn as_int(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

/// The keys directly below `rel` (`""` = the top level), for the unknown-key message.
fn children(rel: &str) -> Vec<&'static str> {
    PLUGIN_KEYS
        .iter()
        .filter_map(|k| match rel {
            "" => (!k.path.contains('.')).then_some(k.path),
            _ => k
                .path
                .strip_prefix(rel)
                .and_then(|rest| rest.strip_prefix('.'))
                .filter(|rest| !rest.contains('.')),
        })
        .collect()
}

/// Validate the plugin config object (`value` at [`PLUGIN_CONFIG_PATH`]).
pub fn validate_plugin(value: &Value) -> Result<(), String> {
    check_kind(value, Kind::Object, PLUGIN_CONFIG_PATH)?;
    validate_object(value, "")
}

fn validate_object(value: &Value, rel: &str) -> Result<(), String> {
    let Some(object) = value.as_object() else {
        return Ok(());
    };
    for (name, child) in object {
        let child_rel = join(rel, name);
        let at = join(PLUGIN_CONFIG_PATH, &child_rel);
        let Some(key) = plugin_key(&child_rel) else {
            return Err(format!(
                "{at}: unknown key (expected one of: {})",
                children(rel).join(", ")
            ));
        };
        check_kind(child, key.kind, &at)?;
        if key.kind == Kind::Object {
            validate_object(child, &child_rel)?;
        }
    }
    Ok(())
}

/// Check an optional value at `at` of the wider OpenClaw config (only the parts we read).
pub fn check_optional(value: Option<&Value>, kind: Kind, at: &str) -> Result<(), String> {
    value.map_or(Ok(()), |v| check_kind(v, kind, at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn children_of_each_level() {
        assert_eq!(children("search"), vec!["backend", "corpus"]);
        assert_eq!(
            children(""),
            vec![
                "vaultMode",
                "vault",
                "obsidian",
                "bridge",
                "unsafeLocal",
                "ingest",
                "search",
                "context",
                "render"
            ]
        );
    }

    #[test]
    fn every_object_key_has_children_and_every_child_a_parent() {
        for k in PLUGIN_KEYS {
            if k.kind == Kind::Object {
                assert!(!children(k.path).is_empty(), "{}", k.path);
            }
            if let Some((parent, _)) = k.path.rsplit_once('.') {
                assert_eq!(plugin_key(parent).map(|p| p.kind), Some(Kind::Object));
            }
        }
    }

    #[test]
    fn messages_name_the_key_path() {
        let e = validate_plugin(&json!({"search": {"corpus": "everything"}})).unwrap_err();
        assert_eq!(
            e,
            "plugins.entries.memory-wiki.config.search.corpus: expected one of wiki, memory, all (found \"everything\")"
        );
        let e = validate_plugin(&json!({"unsafeLocal": {"paths": ["a", 3]}})).unwrap_err();
        assert_eq!(
            e,
            "plugins.entries.memory-wiki.config.unsafeLocal.paths[1]: expected a string (found 3)"
        );
        let e = validate_plugin(&json!({"ingest": {"maxConcurrentJobs": 0}})).unwrap_err();
        assert_eq!(
            e,
            "plugins.entries.memory-wiki.config.ingest.maxConcurrentJobs: expected an integer >= 1 (found 0)"
        );
        let e = validate_plugin(&json!({"ingest": {"maxConcurrentJobs": 1.5}})).unwrap_err();
        assert!(e.ends_with("expected an integer >= 1 (found 1.5)"), "{e}");
        let e = validate_plugin(&json!({"vault": {"colour": "red"}})).unwrap_err();
        assert_eq!(
            e,
            "plugins.entries.memory-wiki.config.vault.colour: unknown key (expected one of: scope, path, renderMode)"
        );
        assert!(validate_plugin(&json!({})).is_ok());
        assert!(validate_plugin(&json!([])).is_err());
    }
}
