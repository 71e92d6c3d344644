//! A tool call's arguments, read against the tool's input schema: unknown names are refused,
//! and each value is checked for the type the schema gives it, with messages naming the tool and
//! the argument.

use serde_json::{Map, Value as Json};

/// The arguments of one call.
pub struct Params<'a> {
    tool: &'a str,
    args: &'a Map<String, Json>,
}

impl<'a> Params<'a> {
    /// The arguments `args` of a call of `tool`; names its input `schema` does not list are
    /// refused when the schema says `additionalProperties: false`.
    pub fn new(tool: &'a str, args: &'a Map<String, Json>, schema: &Json) -> Result<Self, String> {
        let known = schema.get("properties").and_then(Json::as_object);
        let closed = schema.get("additionalProperties") == Some(&Json::Bool(false));
        if closed {
            let names: Vec<&str> = known
                .map(|k| k.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if let Some(bad) = args.keys().find(|k| !names.contains(&k.as_str())) {
                return Err(if names.is_empty() {
                    format!("{tool}: unknown argument `{bad}` (it takes no arguments)")
                } else {
                    format!(
                        "{tool}: unknown argument `{bad}` (expected: {})",
                        names.join(", ")
                    )
                });
            }
        }
        Ok(Params { tool, args })
    }

    /// The arguments as a JSON object (the operation of `wiki_apply`).
    pub fn object(&self) -> &Map<String, Json> {
        self.args
    }

    fn wrong(&self, key: &str, what: &str, got: &Json) -> String {
        format!("{}: `{key}` must be {what} (got {got})", self.tool)
    }

    /// An optional string (`null` counts as absent).
    pub fn str(&self, key: &str) -> Result<Option<&'a str>, String> {
        match self.args.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    /// A required string that is not blank, trimmed.
    pub fn required(&self, key: &str) -> Result<&'a str, String> {
        match self.str(key)?.map(str::trim) {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(format!(
                "{}: `{key}` is required (a non-empty string)",
                self.tool
            )),
        }
    }

    /// An optional number (numeric strings such as "0.5" are accepted, as the CLI's flags are).
    pub fn number(&self, key: &str) -> Result<Option<f64>, String> {
        match self.args.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::Number(n)) => Ok(n.as_f64()),
            Some(Json::String(s)) if s.trim().parse::<f64>().is_ok_and(f64::is_finite) => {
                Ok(s.trim().parse().ok())
            }
            Some(other) => Err(self.wrong(key, "a number", other)),
        }
    }

    /// A count of at least 1 (`default` when absent; smaller values count as 1, fractions are
    /// rounded down — the plugin's floor of 1).
    pub fn count(&self, key: &str, default: usize) -> Result<usize, String> {
        Ok(match self.number(key)? {
            None => default,
            Some(n) if n < 1.0 => 1,
            Some(n) => n.floor().min(1e9) as usize,
        })
    }

    /// An optional list of strings, as a repeatable flag takes them: an array of strings, or one
    /// string (`null` counts as absent).
    pub fn strings(&self, key: &str) -> Result<Vec<&'a str>, String> {
        match self.args.get(key) {
            None | Some(Json::Null) => Ok(Vec::new()),
            Some(Json::String(s)) => Ok(vec![s.as_str()]),
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Json::String(s) => Ok(s.as_str()),
                    other => Err(self.wrong(key, "an array of strings", other)),
                })
                .collect(),
            Some(other) => Err(self.wrong(key, "an array of strings", other)),
        }
    }

    /// An optional boolean (`default` when absent).
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, String> {
        match self.args.get(key) {
            None | Some(Json::Null) => Ok(default),
            Some(Json::Bool(b)) => Ok(*b),
            Some(other) => Err(self.wrong(key, "true or false", other)),
        }
    }

    /// One of the names a clap `ValueEnum` accepts, or `message` (the CLI's wording).
    pub fn choice<T: clap::ValueEnum>(
        &self,
        key: &str,
        default: T,
        message: impl Fn(&str) -> String,
    ) -> Result<T, String> {
        match self.str(key)? {
            None => Ok(default),
            Some(s) => T::from_str(s.trim(), false).map_err(|_| message(s)),
        }
    }
}
