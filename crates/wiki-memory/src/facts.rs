//! Retained facts across the workspace's daily notes, filtered by day, entity and kind.

use jiff::civil::Date;

use crate::error::{Error, Result};
use crate::retain::{self, Fact, Kind, Malformed};
use crate::time::Window;
use crate::workspace::{self, Workspace};

/// Which facts to keep.
#[derive(Debug, Clone)]
pub struct Filter {
    /// Days of the notes.
    pub window: Window,
    /// Entity keys ([`retain::entity_key`]); a fact must mention one of them (empty: any).
    pub entities: Vec<String>,
    /// Kinds (empty: any).
    pub kinds: Vec<Kind>,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            window: Window::ALL,
            entities: Vec::new(),
            kinds: Vec::new(),
        }
    }
}

impl Filter {
    /// Whether `fact` passes the entity and kind filters (the day is checked per note).
    pub fn keeps(&self, fact: &Fact) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&fact.kind))
            && (self.entities.is_empty()
                || fact
                    .entities
                    .iter()
                    .any(|e| self.entities.contains(&retain::entity_key(e))))
    }
}

/// Facts, malformed lines and unreadable notes.
#[derive(Debug, Default)]
pub struct Collected {
    /// Facts, by day, note and line.
    pub facts: Vec<Fact>,
    /// Malformed Retain lines, in the same order.
    pub malformed: Vec<Malformed>,
    /// Notes that could not be read (`path: reason`).
    pub errors: Vec<String>,
    /// Notes read.
    pub notes: usize,
}

/// Collect the facts of the daily notes in `filter.window` (all of them, or only `only` when
/// given: workspace-relative paths).
pub fn collect(ws: &Workspace, filter: &Filter, only: Option<&[String]>) -> Collected {
    let mut out = Collected::default();
    let notes = match only {
        // The given notes (those a search hit): no listing of the workspace needed.
        Some(only) => {
            let mut notes: Vec<(Date, String)> = only
                .iter()
                .filter_map(|p| workspace::note_day(p).map(|d| (d, p.clone())))
                .collect();
            notes.sort();
            notes.dedup();
            notes
        }
        None => ws.daily_notes(),
    };
    for (day, path) in notes {
        if !filter.window.contains(Some(day)) {
            continue;
        }
        out.notes += 1;
        match ws.read(&path) {
            Ok(Some(text)) => {
                let (facts, bad) = retain::parse(&path, Some(day), &text);
                out.facts
                    .extend(facts.into_iter().filter(|f| filter.keeps(f)));
                out.malformed.extend(bad);
            }
            Ok(None) => {}
            Err(e) => out.errors.push(e.to_string()),
        }
    }
    out
}

/// Facts of one note (`path` workspace-relative).
pub fn of_note(ws: &Workspace, path: &str) -> Result<(Vec<Fact>, Vec<Malformed>)> {
    let day = workspace::note_day(path);
    let text = ws
        .read(path)?
        .ok_or_else(|| Error::Invalid(format!("{path}: no such memory file")))?;
    Ok(retain::parse(path, day, &text))
}
