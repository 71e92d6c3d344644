//! The five kinds of page, named by their directory.

use serde::{Deserialize, Serialize};

/// The kind of a page, from its first path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    /// `sources/`
    Source,
    /// `entities/`
    Entity,
    /// `concepts/`
    Concept,
    /// `syntheses/`
    Synthesis,
    /// `reports/`
    Report,
}

impl PageKind {
    /// All kinds in scan order.
    pub const ALL: [PageKind; 5] = [
        PageKind::Source,
        PageKind::Entity,
        PageKind::Concept,
        PageKind::Synthesis,
        PageKind::Report,
    ];

    /// The directory of this kind.
    pub fn dir(self) -> &'static str {
        match self {
            PageKind::Source => "sources",
            PageKind::Entity => "entities",
            PageKind::Concept => "concepts",
            PageKind::Synthesis => "syntheses",
            PageKind::Report => "reports",
        }
    }

    /// The kind name (`entity`, `concept`, `source`, `synthesis`, `report`), also the expected
    /// `pageType`.
    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Source => "source",
            PageKind::Entity => "entity",
            PageKind::Concept => "concept",
            PageKind::Synthesis => "synthesis",
            PageKind::Report => "report",
        }
    }

    /// The group heading used by indexes (`Sources`, `Entities`, …).
    pub fn heading(self) -> &'static str {
        match self {
            PageKind::Source => "Sources",
            PageKind::Entity => "Entities",
            PageKind::Concept => "Concepts",
            PageKind::Synthesis => "Syntheses",
            PageKind::Report => "Reports",
        }
    }

    /// The kind of a vault-relative path, from its first segment.
    pub fn from_path(path: &str) -> Option<PageKind> {
        let first = path.split('/').next()?;
        PageKind::ALL.into_iter().find(|k| k.dir() == first)
    }
}
