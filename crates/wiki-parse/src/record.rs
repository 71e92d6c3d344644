//! The JSON Lines records written by `wiki-parse` and read by `wiki-digest` / `wiki-lint`.
//!
//! One record per line, each with a `type` field. The schema is also published as JSON Schema in
//! `crates/wiki-parse/schema/page-record.schema.json`.
//!
//! ```json
//! {"type":"page","path":"entities/alpha.md","kind":"entity","title":"Alpha",
//!  "id":"entity.alpha","pageType":"entity", …summary fields…,
//!  "aliases":[],"sourceIds":["source.alpha"],"contradictions":[],"questions":[],
//!  "bestUsedFor":[],"notEnoughFor":[],
//!  "claims":[{"id":"claim.alpha.db","text":"…","status":"supported","confidence":0.9,
//!             "evidence":[{"kind":"doc","sourceId":"source.alpha","lines":"12-18"}],"line":9}],
//!  "relationships":[],
//!  "links":[{"target":"../sources/alpha.md","kind":"markdown","line":20,"resolved":"sources/alpha.md"}],
//!  "blobId":"<40 hex>","bodyLine":14,"keyLines":{"id":2,"claims":8}}
//! {"type":"error","path":"concepts/broken.md","line":3,"message":"invalid YAML frontmatter: …"}
//! ```
//!
//! * `page`: [`PageInfo`] fields (optional summary fields omitted when absent, list fields always
//!   present), plus `frontmatter` (the raw frontmatter as JSON, key order kept) and `body` (the
//!   body text) when requested with `--frontmatter` / `--body`.
//! * `error`: a page that could not be parsed; `line` is the 1-based file line.
//!
//! Readers ignore blank lines and records of other types, so streams can be concatenated.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

use crate::page::{Page, PageError, PageInfo};
use crate::yaml;

/// A page record: [`PageInfo`] plus optional extras.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRecord {
    /// The page information.
    #[serde(flatten)]
    pub info: PageInfo,
    /// Raw frontmatter as JSON (only with `--frontmatter`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<serde_json::Value>,
    /// Body text (only with `--body`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// One JSON Lines record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Record {
    /// A parsed page.
    Page(Box<PageRecord>),
    /// A page that failed to parse.
    Error(PageError),
}

impl Record {
    /// Build a page record from a parsed page.
    pub fn from_page(page: &Page, with_frontmatter: bool, with_body: bool) -> Record {
        Record::Page(Box::new(PageRecord {
            info: page.info.clone(),
            frontmatter: with_frontmatter
                .then(|| yaml::to_json(&yaml_serde::Value::Mapping(page.frontmatter.clone()))),
            body: with_body.then(|| page.body().to_string()),
        }))
    }
}

/// A record stream that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading failed.
    #[error("cannot read records: {0}")]
    Io(#[from] std::io::Error),
    /// A line is not a valid record.
    #[error("<stdin>:{line}: invalid record: {message}")]
    Invalid {
        /// 1-based line in the stream.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Pages and page errors read from a record stream.
#[derive(Debug, Default)]
pub struct RecordSet {
    /// Page records in stream order.
    pub pages: Vec<PageInfo>,
    /// Error records in stream order.
    pub errors: Vec<PageError>,
}

/// Read `page` and `error` records from a JSON Lines stream. Blank lines and records of other
/// types are skipped; a line that is not JSON, or a page/error record with missing fields, is an
/// error naming its line.
pub fn read_records(reader: impl BufRead) -> Result<RecordSet, RecordError> {
    let mut set = RecordSet::default();
    for (idx, line) in reader.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| RecordError::Invalid {
                line: idx + 1,
                message: e.to_string(),
            })?;
        let kind = value.get("type").and_then(|t| t.as_str()).unwrap_or("");
        if kind != "page" && kind != "error" {
            continue;
        }
        match serde_json::from_value::<Record>(value) {
            Ok(Record::Page(p)) => set.pages.push(p.info),
            Ok(Record::Error(e)) => set.errors.push(e),
            Err(e) => {
                return Err(RecordError::Invalid {
                    line: idx + 1,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::parse_page;

    #[test]
    fn page_records_round_trip() {
        let page = parse_page(
            "entities/alpha.md",
            b"---\nid: entity.alpha\nsourceIds: source.a\nclaims:\n  - id: c\n    text: T\n    evidence:\n      - sourceId: s\n---\n\n# Alpha\n[[sources/a]]\n",
        )
        .unwrap();
        let rec = Record::from_page(&page, true, false);
        let line = serde_json::to_string(&rec).unwrap();
        assert!(line.starts_with(r#"{"type":"page","path":"entities/alpha.md","kind":"entity","title":"Alpha","id":"entity.alpha""#), "{line}");
        let err = Record::Error(PageError {
            path: "concepts/x.md".into(),
            line: 3,
            message: "bad".into(),
        });
        let stream = format!(
            "{line}\n\n{}\n{{\"type\":\"summary\"}}\n",
            serde_json::to_string(&err).unwrap()
        );
        let set = read_records(stream.as_bytes()).unwrap();
        assert_eq!(set.pages.len(), 1);
        // Everything but the parse-cache hint `claims_complete`, which records do not carry
        // (read back as false: unknown).
        assert!(page.info.claims_complete);
        let mut expected = page.info.clone();
        expected.claims_complete = false;
        assert_eq!(set.pages[0], expected);
        assert_eq!(set.errors.len(), 1);
        let bad = read_records("{\"type\":\"page\"}\n".as_bytes()).unwrap_err();
        assert!(bad.to_string().starts_with("<stdin>:1: invalid record"));
    }
}
