//! Identity and commit-time resolution (environment, git config, defaults).

use std::collections::BTreeMap;

use gix::date::Time;

use crate::{Error, Identity, Result};

/// Default author name when nothing else is configured.
pub const DEFAULT_NAME: &str = "wiki";
/// Default author email when nothing else is configured.
pub const DEFAULT_EMAIL: &str = "wiki@localhost";

/// Where the store reads the environment variables that influence commits
/// (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`, `WIKI_AUTHOR_*`, `WIKI_NOW`).
///
/// The default reads the process environment. [`EnvSource::Fixed`] makes a store independent of
/// the process environment (deterministic tests, or an embedding program that resolved these values
/// itself). Git configuration (`user.name`, `user.email`) is read from the repository either way.
#[derive(Clone, Debug, Default)]
pub enum EnvSource {
    /// Read `std::env::var` at the moment of each commit.
    #[default]
    Process,
    /// Use exactly these values; variables absent from the map count as unset.
    Fixed(BTreeMap<String, String>),
}

impl EnvSource {
    /// A fixed environment built from `pairs`.
    pub fn fixed<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        EnvSource::Fixed(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }

    /// The value of `key`; empty values count as unset.
    pub fn get(&self, key: &str) -> Option<String> {
        let value = match self {
            EnvSource::Process => std::env::var(key).ok(),
            EnvSource::Fixed(map) => map.get(key).cloned(),
        }?;
        if value.trim().is_empty() {
            None
        } else {
            Some(value)
        }
    }
}

/// Which signature of a commit is being resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Author,
    Committer,
}

/// Resolve an identity by the documented precedence:
/// `GIT_COMMITTER_*` (committer only) → `GIT_AUTHOR_*` → git config `user.*` → `WIKI_AUTHOR_*` →
/// `wiki <wiki@localhost>`. Name and email are resolved independently.
pub(crate) fn resolve_identity(
    env: &EnvSource,
    config_name: Option<String>,
    config_email: Option<String>,
    role: Role,
) -> Identity {
    let pick = |field: &str, config: Option<String>, default: &str| -> String {
        let mut chain: Vec<String> = Vec::new();
        if role == Role::Committer {
            chain.push(format!("GIT_COMMITTER_{field}"));
        }
        chain.push(format!("GIT_AUTHOR_{field}"));
        let from_git_env = chain.iter().find_map(|k| env.get(k));
        let value = from_git_env
            .or_else(|| config.filter(|c| !c.trim().is_empty()))
            .or_else(|| env.get(&format!("WIKI_AUTHOR_{field}")))
            .unwrap_or_else(|| default.to_string());
        sanitize_ident(&value)
    };
    Identity {
        name: pick("NAME", config_name, DEFAULT_NAME),
        email: pick("EMAIL", config_email, DEFAULT_EMAIL),
    }
}

/// Git strips `<`, `>` and line breaks from identities; so do we.
fn sanitize_ident(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '<' | '>' | '\n' | '\r' | '\0'))
        .collect::<String>()
        .trim()
        .to_string()
}

/// Resolve the time for a signature: the role's own git variable, then the other one, then
/// `WIKI_NOW`, then the current time (UTC).
pub(crate) fn resolve_time(env: &EnvSource, role: Role) -> Result<Time> {
    let vars: [&str; 3] = match role {
        Role::Author => ["GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "WIKI_NOW"],
        Role::Committer => ["GIT_COMMITTER_DATE", "GIT_AUTHOR_DATE", "WIKI_NOW"],
    };
    for var in vars {
        if let Some(value) = env.get(var) {
            return parse_date(value.trim()).ok_or_else(|| Error::InvalidDate {
                var: var.to_string(),
                value,
            });
        }
    }
    Ok(Time::now_utc())
}

/// Parse `@<unix> <offset>`, `<unix> <offset>`, RFC 3339 (`2026-04-05T12:00:00Z`), ISO 8601
/// (`2026-04-05 12:00:00 +0200`), RFC 2822 and the other forms git accepts.
pub(crate) fn parse_date(value: &str) -> Option<Time> {
    if let Ok(ts) = value.parse::<jiff::Zoned>() {
        return Some(Time::new(ts.timestamp().as_second(), ts.offset().seconds()));
    }
    if let Ok(ts) = value.parse::<jiff::Timestamp>() {
        // RFC 3339 with `Z` or a numeric offset; keep the offset when there is one.
        let offset = rfc3339_offset(value).unwrap_or(0);
        return Some(Time::new(ts.as_second(), offset));
    }
    gix::date::parse(value, None).ok()
}

fn rfc3339_offset(value: &str) -> Option<i32> {
    if value.ends_with('Z') || value.ends_with('z') {
        return Some(0);
    }
    let tail = value.get(value.len().checked_sub(6)?..)?;
    let sign = match tail.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let hours: i32 = tail.get(1..3)?.parse().ok()?;
    if tail.as_bytes().get(3) != Some(&b':') {
        return None;
    }
    let minutes: i32 = tail.get(4..6)?.parse().ok()?;
    Some(sign * (hours * 3600 + minutes * 60))
}

/// Format a git time as ISO 8601 with its own offset, e.g. `2026-04-05T12:00:00+00:00`.
pub(crate) fn iso(time: Time) -> String {
    time.format(gix::date::time::format::ISO8601_STRICT)
        .unwrap_or_else(|_| format!("@{} {:+}", time.seconds, time.offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> EnvSource {
        EnvSource::fixed(pairs.iter().copied())
    }

    #[test]
    fn identity_precedence() {
        let cfg = || (Some("Cfg".to_string()), Some("cfg@x".to_string()));
        // git env beats config
        let e = env(&[("GIT_AUTHOR_NAME", "Env"), ("GIT_AUTHOR_EMAIL", "env@x")]);
        let (n, m) = cfg();
        let id = resolve_identity(&e, n, m, Role::Author);
        assert_eq!((id.name.as_str(), id.email.as_str()), ("Env", "env@x"));
        // committer variables only for the committer
        let e = env(&[("GIT_AUTHOR_NAME", "A"), ("GIT_COMMITTER_NAME", "C")]);
        let (n, m) = cfg();
        assert_eq!(resolve_identity(&e, n, m, Role::Committer).name, "C");
        let (n, m) = cfg();
        assert_eq!(resolve_identity(&e, n, m, Role::Author).name, "A");
        // config beats WIKI_*
        let e = env(&[("WIKI_AUTHOR_NAME", "W"), ("WIKI_AUTHOR_EMAIL", "w@x")]);
        let (n, m) = cfg();
        let id = resolve_identity(&e, n, m, Role::Author);
        assert_eq!((id.name.as_str(), id.email.as_str()), ("Cfg", "cfg@x"));
        // WIKI_* beats default
        let id = resolve_identity(&e, None, None, Role::Author);
        assert_eq!((id.name.as_str(), id.email.as_str()), ("W", "w@x"));
        // default
        let id = resolve_identity(&env(&[]), None, None, Role::Committer);
        assert_eq!(
            (id.name.as_str(), id.email.as_str()),
            ("wiki", "wiki@localhost")
        );
        // sanitizing
        let e = env(&[("GIT_AUTHOR_NAME", "Evil <x>\nName")]);
        assert_eq!(
            resolve_identity(&e, None, None, Role::Author).name,
            "Evil xName"
        );
    }

    #[test]
    fn dates() {
        let t = parse_date("@1700000000 +0000").expect("raw");
        assert_eq!((t.seconds, t.offset), (1_700_000_000, 0));
        let t = parse_date("1700000000 +0200").expect("raw without @");
        assert_eq!((t.seconds, t.offset), (1_700_000_000, 7200));
        let t = parse_date("2026-04-05T12:00:00Z").expect("rfc3339 Z");
        assert_eq!((t.seconds, t.offset), (1_775_390_400, 0));
        let t = parse_date("2026-04-05T14:00:00+02:00").expect("rfc3339 offset");
        assert_eq!((t.seconds, t.offset), (1_775_390_400, 7200));
        let t = parse_date("2026-04-05 14:00:00 +0200").expect("iso");
        assert_eq!((t.seconds, t.offset), (1_775_390_400, 7200));
        assert!(parse_date("not a date").is_none());

        let e = env(&[("WIKI_NOW", "2026-04-05T12:00:00Z")]);
        assert_eq!(
            resolve_time(&e, Role::Author).expect("ok").seconds,
            1_775_390_400
        );
        let e = env(&[
            ("WIKI_NOW", "2026-04-05T12:00:00Z"),
            ("GIT_COMMITTER_DATE", "@5 +0000"),
        ]);
        assert_eq!(resolve_time(&e, Role::Author).expect("ok").seconds, 5);
        assert_eq!(resolve_time(&e, Role::Committer).expect("ok").seconds, 5);
        let e = env(&[("GIT_AUTHOR_DATE", "garbage")]);
        assert!(matches!(
            resolve_time(&e, Role::Author),
            Err(Error::InvalidDate { .. })
        ));
        assert_eq!(
            iso(Time::new(1_775_390_400, 0)),
            "2026-04-05T12:00:00+00:00"
        );
    }
}
