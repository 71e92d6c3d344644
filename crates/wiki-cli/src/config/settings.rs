//! The typed `plugins.entries.memory-wiki.config` (reference §11.1) with the seed's defaults, and
//! where each value came from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::schema::{self, Kind, PLUGIN_CONFIG_PATH, PLUGIN_KEYS};
use super::{Source, env_subst};

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// The config spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parse the config spelling.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// `vaultMode`: where the wiki's inputs come from.
    VaultMode {
        /// Own vault, own sources (default).
        #[default]
        Isolated = "isolated",
        /// Reads the active memory plugin's public artifacts.
        Bridge = "bridge",
        /// Reads configured private local paths.
        UnsafeLocal = "unsafe-local",
    }
);

string_enum!(
    /// `vault.scope`.
    VaultScope {
        /// One vault for every agent (default).
        #[default]
        Global = "global",
        /// One vault (here: one branch `agents/<id>`) per agent.
        Agent = "agent",
    }
);

string_enum!(
    /// `vault.renderMode`: the link style compile writes.
    RenderMode {
        /// `[Title](path.md)` links (default).
        #[default]
        Native = "native",
        /// `[[path|Title]]` links.
        Obsidian = "obsidian",
    }
);

string_enum!(
    /// `bridge.ownership` (read-time visibility filter of bridged artifacts).
    BridgeOwnership {
        /// Only artifacts of sandboxed sessions (default).
        #[default]
        SandboxedOnly = "sandboxed-only",
        /// Artifacts owned by the agent.
        Owner = "owner",
        /// Artifacts delegated to the agent.
        Delegation = "delegation",
    }
);

string_enum!(
    /// `search.backend`.
    SearchBackend {
        /// Wiki plus the shared memory corpus when the corpus asks for it (default).
        #[default]
        Shared = "shared",
        /// Wiki only.
        Local = "local",
    }
);

string_enum!(
    /// `search.corpus`.
    SearchCorpus {
        /// The wiki pages (default).
        #[default]
        Wiki = "wiki",
        /// The agent's memory files.
        Memory = "memory",
        /// Both.
        All = "all",
    }
);

/// `vault.*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VaultSettings {
    /// `vault.scope` (default `global`).
    pub scope: VaultScope,
    /// `vault.path` as configured, `~` expanded and made absolute against the config file's
    /// directory (`None`: not configured, the default applies, see
    /// [`super::WikiConfig::vault_path_setting`]).
    pub path: Option<PathBuf>,
    /// `vault.renderMode` (default `native`).
    pub render_mode: RenderMode,
}

/// `obsidian.*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ObsidianSettings {
    /// `obsidian.enabled` (default false).
    pub enabled: bool,
    /// `obsidian.useOfficialCli` (default false).
    pub use_official_cli: bool,
    /// `obsidian.vaultName` (optional).
    pub vault_name: Option<String>,
    /// `obsidian.openAfterWrites` (default false).
    pub open_after_writes: bool,
}

/// `bridge.*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeSettings {
    /// `bridge.enabled` (default false).
    pub enabled: bool,
    /// `bridge.readMemoryArtifacts` (default true).
    pub read_memory_artifacts: bool,
    /// `bridge.indexDreamReports` (default true).
    pub index_dream_reports: bool,
    /// `bridge.indexDailyNotes` (default true).
    pub index_daily_notes: bool,
    /// `bridge.indexMemoryRoot` (default true).
    pub index_memory_root: bool,
    /// `bridge.followMemoryEvents` (default true).
    pub follow_memory_events: bool,
    /// `bridge.ownership` (default `sandboxed-only`).
    pub ownership: BridgeOwnership,
}

/// `unsafeLocal.*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct UnsafeLocalSettings {
    /// `unsafeLocal.allowPrivateMemoryCoreAccess` (default false).
    pub allow_private_memory_core_access: bool,
    /// `unsafeLocal.paths` (default `[]`), `~` expanded, relative paths taken against the config
    /// file's directory; blank entries dropped.
    pub paths: Vec<PathBuf>,
}

/// `ingest.*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestSettings {
    /// `ingest.autoCompile` (default true): compile after an ingest.
    pub auto_compile: bool,
    /// `ingest.maxConcurrentJobs` (default 1, at least 1).
    pub max_concurrent_jobs: u32,
    /// `ingest.allowUrlIngest` (default true).
    pub allow_url_ingest: bool,
}

/// `search.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SearchSettings {
    /// `search.backend` (default `shared`).
    pub backend: SearchBackend,
    /// `search.corpus` (default `wiki`).
    pub corpus: SearchCorpus,
}

/// `context.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ContextSettings {
    /// `context.includeCompiledDigestPrompt` (default false).
    pub include_compiled_digest_prompt: bool,
}

/// `render.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderSettings {
    /// `render.preserveHumanBlocks` (default true; human blocks are always preserved).
    pub preserve_human_blocks: bool,
    /// `render.createBacklinks` (default true): compile writes Related blocks.
    pub create_backlinks: bool,
    /// `render.createDashboards` (default true): compile writes the dashboards.
    pub create_dashboards: bool,
}

/// The whole `plugins.entries.memory-wiki.config`, typed, defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `vaultMode` (default `isolated`).
    pub vault_mode: VaultMode,
    /// `vault.*`.
    pub vault: VaultSettings,
    /// `obsidian.*`.
    pub obsidian: ObsidianSettings,
    /// `bridge.*`.
    pub bridge: BridgeSettings,
    /// `unsafeLocal.*`.
    pub unsafe_local: UnsafeLocalSettings,
    /// `ingest.*`.
    pub ingest: IngestSettings,
    /// `search.*`.
    pub search: SearchSettings,
    /// `context.*`.
    pub context: ContextSettings,
    /// `render.*`.
    pub render: RenderSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            vault_mode: VaultMode::Isolated,
            vault: VaultSettings {
                scope: VaultScope::Global,
                path: None,
                render_mode: RenderMode::Native,
            },
            obsidian: ObsidianSettings::default(),
            bridge: BridgeSettings {
                enabled: false,
                read_memory_artifacts: true,
                index_dream_reports: true,
                index_daily_notes: true,
                index_memory_root: true,
                follow_memory_events: true,
                ownership: BridgeOwnership::SandboxedOnly,
            },
            unsafe_local: UnsafeLocalSettings::default(),
            ingest: IngestSettings {
                auto_compile: true,
                max_concurrent_jobs: 1,
                allow_url_ingest: true,
            },
            search: SearchSettings::default(),
            context: ContextSettings::default(),
            render: RenderSettings {
                preserve_human_blocks: true,
                create_backlinks: true,
                create_dashboards: true,
            },
        }
    }
}

/// Reads validated values out of the plugin object, recording each present key's source.
struct Reader<'a> {
    root: &'a Value,
    sources: BTreeMap<&'static str, Source>,
}

impl<'a> Reader<'a> {
    fn get(&self, path: &str) -> Option<&'a Value> {
        path.split('.').try_fold(self.root, |v, k| v.get(k))
    }

    fn mark(&mut self, path: &str, source: Source) {
        if let Some(key) = schema::plugin_key(path) {
            self.sources.insert(key.path, source);
        }
    }

    fn bool(&mut self, path: &str, default: bool) -> bool {
        match self.get(path).and_then(Value::as_bool) {
            Some(b) => {
                self.mark(path, Source::file());
                b
            }
            None => default,
        }
    }

    /// A string with `${VAR}` references substituted.
    fn string(&mut self, path: &str) -> Result<Option<String>, String> {
        let Some(raw) = self.get(path).and_then(Value::as_str) else {
            return Ok(None);
        };
        let (text, vars) = env_subst(raw, &schema::join(PLUGIN_CONFIG_PATH, path))?;
        self.mark(path, Source::file_via(&vars));
        Ok(Some(text))
    }

    fn enumerated<T: Default>(
        &mut self,
        path: &str,
        parse: fn(&str) -> Option<T>,
    ) -> Result<T, String> {
        Ok(self
            .string(path)?
            .and_then(|s| parse(&s))
            .unwrap_or_default())
    }
}

/// `~` expansion, then relative paths against `base`.
fn config_path_value(text: &str, base: &Path) -> PathBuf {
    crate::absolutize(Path::new(text.trim()), base)
}

/// Validate `plugin` (the value at [`PLUGIN_CONFIG_PATH`], `Null` when absent) and read it.
/// `base` anchors relative paths (the config file's directory). Returns the settings and the
/// source of every key the file sets.
pub fn read(
    plugin: &Value,
    base: &Path,
) -> Result<(Settings, BTreeMap<&'static str, Source>), String> {
    let empty = Value::Object(Map::new());
    let plugin = if plugin.is_null() { &empty } else { plugin };
    schema::validate_plugin(plugin)?;
    let mut r = Reader {
        root: plugin,
        sources: BTreeMap::new(),
    };
    let d = Settings::default();
    // Enum values were validated; `${VAR}` substitution may still produce an unknown one.
    for k in PLUGIN_KEYS {
        if let Kind::Enum(values) = k.kind
            && let Some(text) = r.string(k.path)?
            && !values.contains(&text.as_str())
        {
            return Err(format!(
                "{}: expected {} (found {text:?})",
                schema::join(PLUGIN_CONFIG_PATH, k.path),
                schema::expected(k.kind)
            ));
        }
    }
    let settings = Settings {
        vault_mode: r.enumerated("vaultMode", VaultMode::parse)?,
        vault: VaultSettings {
            scope: r.enumerated("vault.scope", VaultScope::parse)?,
            path: r
                .string("vault.path")?
                .filter(|p| !p.trim().is_empty())
                .map(|p| config_path_value(&p, base)),
            render_mode: r.enumerated("vault.renderMode", RenderMode::parse)?,
        },
        obsidian: ObsidianSettings {
            enabled: r.bool("obsidian.enabled", d.obsidian.enabled),
            use_official_cli: r.bool("obsidian.useOfficialCli", d.obsidian.use_official_cli),
            vault_name: r
                .string("obsidian.vaultName")?
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            open_after_writes: r.bool("obsidian.openAfterWrites", d.obsidian.open_after_writes),
        },
        bridge: read_bridge(&mut r, &d.bridge)?,
        unsafe_local: UnsafeLocalSettings {
            allow_private_memory_core_access: r.bool(
                "unsafeLocal.allowPrivateMemoryCoreAccess",
                d.unsafe_local.allow_private_memory_core_access,
            ),
            paths: read_paths(&mut r, base)?,
        },
        ingest: IngestSettings {
            auto_compile: r.bool("ingest.autoCompile", d.ingest.auto_compile),
            max_concurrent_jobs: read_jobs(&mut r),
            allow_url_ingest: r.bool("ingest.allowUrlIngest", d.ingest.allow_url_ingest),
        },
        search: SearchSettings {
            backend: r.enumerated("search.backend", SearchBackend::parse)?,
            corpus: r.enumerated("search.corpus", SearchCorpus::parse)?,
        },
        context: ContextSettings {
            include_compiled_digest_prompt: r.bool(
                "context.includeCompiledDigestPrompt",
                d.context.include_compiled_digest_prompt,
            ),
        },
        render: RenderSettings {
            preserve_human_blocks: r
                .bool("render.preserveHumanBlocks", d.render.preserve_human_blocks),
            create_backlinks: r.bool("render.createBacklinks", d.render.create_backlinks),
            create_dashboards: r.bool("render.createDashboards", d.render.create_dashboards),
        },
    };
    check_rules(&settings)?;
    Ok((settings, r.sources))
}

fn read_bridge(r: &mut Reader<'_>, d: &BridgeSettings) -> Result<BridgeSettings, String> {
    Ok(BridgeSettings {
        enabled: r.bool("bridge.enabled", d.enabled),
        read_memory_artifacts: r.bool("bridge.readMemoryArtifacts", d.read_memory_artifacts),
        index_dream_reports: r.bool("bridge.indexDreamReports", d.index_dream_reports),
        index_daily_notes: r.bool("bridge.indexDailyNotes", d.index_daily_notes),
        index_memory_root: r.bool("bridge.indexMemoryRoot", d.index_memory_root),
        follow_memory_events: r.bool("bridge.followMemoryEvents", d.follow_memory_events),
        ownership: r.enumerated("bridge.ownership", BridgeOwnership::parse)?,
    })
}

fn read_jobs(r: &mut Reader<'_>) -> u32 {
    match r.get("ingest.maxConcurrentJobs").and_then(schema::as_int) {
        Some(n) => {
            r.mark("ingest.maxConcurrentJobs", Source::file());
            u32::try_from(n).unwrap_or(u32::MAX)
        }
        None => 1,
    }
}

fn read_paths(r: &mut Reader<'_>, base: &Path) -> Result<Vec<PathBuf>, String> {
    let Some(items) = r.get("unsafeLocal.paths").and_then(Value::as_array) else {
        return Ok(Vec::new());
    };
    let mut vars = Vec::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let raw = item.as_str().unwrap_or_default();
        let at = format!("{PLUGIN_CONFIG_PATH}.unsafeLocal.paths[{i}]");
        let (text, used) = env_subst(raw, &at)?;
        vars.extend(used);
        if !text.trim().is_empty() {
            out.push(config_path_value(&text, base));
        }
    }
    r.mark("unsafeLocal.paths", Source::file_via(&vars));
    Ok(out)
}

/// The cross-key rules of the original (reference §11.1), with its error paths.
fn check_rules(s: &Settings) -> Result<(), String> {
    if s.vault.scope == VaultScope::Agent {
        if s.vault_mode == VaultMode::UnsafeLocal {
            return Err(format!(
                "{PLUGIN_CONFIG_PATH}.vaultMode: vaultMode=unsafe-local cannot be combined with vault.scope=agent"
            ));
        }
        if s.obsidian.use_official_cli {
            return Err(format!(
                "{PLUGIN_CONFIG_PATH}.obsidian.useOfficialCli: obsidian.useOfficialCli cannot be enabled with vault.scope=agent"
            ));
        }
    }
    Ok(())
}

impl Settings {
    /// The effective value of a dotted plugin key as JSON (`None` for an unknown key or an
    /// unset optional key).
    pub fn value_of(&self, path: &str) -> Option<Value> {
        let tree = serde_json::to_value(self).ok()?;
        let v = path.split('.').try_fold(&tree, |v, k| v.get(k))?;
        (!v.is_null()).then(|| v.clone())
    }
}
