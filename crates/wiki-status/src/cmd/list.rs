//! `wiki list`: the pages of the compiled digest, filtered.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use wiki_cli::output::{Painter, Style};
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

/// List the vault's pages from the compiled digest (`.openclaw-wiki/cache/agent-digest.json` and
/// `claims.jsonl`, written by `wiki compile`), sorted by path.
///
/// Filters combine (a page must pass all): `--kind`, `--stale` (the page's freshness is stale:
/// `updatedAt` 90 days old or more at the last compile), `--contested` (a claim is contested,
/// contradicted, refuted or superseded, or the page lists contradictions), `--low-confidence`
/// (the page's or a claim's confidence is below 0.5).
///
/// Output: text, one page per line (`path  title  [stale, contested, low confidence]`);
/// `--format jsonl`: one `{"type":"page","path","id","title","kind","freshness","confidence",
/// "claimCount","contestedClaims","lowConfidenceClaims","contradictions"}` record per page;
/// `--json`: one array. Exit status 0 when pages are listed, 1 when none matches, 2 when the
/// vault has not been compiled.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Only pages of this kind: entity, concept, source, synthesis, report.
    #[arg(long, value_name = "KIND", value_parser = ["entity", "concept", "source", "synthesis", "report"])]
    pub kind: Option<String>,

    /// Only pages whose freshness is stale.
    #[arg(long)]
    pub stale: bool,

    /// Only pages with a contested claim or a contradiction.
    #[arg(long)]
    pub contested: bool,

    /// Only pages whose confidence, or a claim's, is below 0.5.
    #[arg(long)]
    pub low_confidence: bool,
}

/// Claim statuses that count as contested (reference §2.3).
const CONTESTED: &[&str] = &["contested", "contradicted", "refuted", "superseded"];
/// Confidence below this is low (reference §4.5).
const LOW_CONFIDENCE: f64 = 0.5;

#[derive(Deserialize)]
struct Digest {
    pages: Vec<DigestPage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DigestPage {
    path: String,
    #[serde(default)]
    id: Option<String>,
    title: String,
    kind: String,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    contradictions: Vec<String>,
    #[serde(default)]
    freshness_level: Option<String>,
    #[serde(default)]
    claim_count: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaimLine {
    page_path: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    confidence: Option<f64>,
}

/// One listed page (the JSON record).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    #[serde(rename = "type")]
    kind_tag: &'static str,
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    title: String,
    kind: String,
    freshness: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<f64>,
    claim_count: usize,
    contested_claims: usize,
    low_confidence_claims: usize,
    contradictions: usize,
}

impl Listed {
    fn contested(&self) -> bool {
        self.contested_claims > 0 || self.contradictions > 0
    }

    fn low_confidence(&self) -> bool {
        self.low_confidence_claims > 0 || self.confidence.is_some_and(|c| c < LOW_CONFIDENCE)
    }

    fn tags(&self) -> Vec<&'static str> {
        let mut tags = Vec::new();
        if self.freshness == "stale" {
            tags.push("stale");
        }
        if self.contested() {
            tags.push("contested");
        }
        if self.low_confidence() {
            tags.push("low confidence");
        }
        tags
    }
}

/// The pages of a compiled digest with their claim counts (`claims` are the claims.jsonl bytes).
fn pages(digest: &[u8], claims: &[u8]) -> Result<Vec<Listed>, CliError> {
    let digest: Digest = serde_json::from_slice(digest).map_err(|e| {
        CliError::Runtime(format!(
            "{}: cannot read the compiled digest ({e}); run `wiki compile`",
            wiki_parse::layout::AGENT_DIGEST_PATH
        ))
    })?;
    let mut per_page: HashMap<String, (usize, usize)> = HashMap::new();
    for line in claims.split(|b| *b == b'\n') {
        // Readers ignore blank and unparsable lines (reference §4.6).
        let Ok(claim) = serde_json::from_slice::<ClaimLine>(line) else {
            continue;
        };
        let entry = per_page.entry(claim.page_path).or_default();
        let status = claim.status.unwrap_or_default().to_lowercase();
        entry.0 += usize::from(CONTESTED.contains(&status.as_str()));
        entry.1 += usize::from(claim.confidence.is_some_and(|c| c < LOW_CONFIDENCE));
    }
    let mut listed: Vec<Listed> = digest
        .pages
        .into_iter()
        .map(|p| {
            let (contested, low) = per_page.get(&p.path).copied().unwrap_or_default();
            Listed {
                kind_tag: "page",
                id: p.id,
                title: p.title,
                kind: p.kind,
                freshness: p.freshness_level.unwrap_or_else(|| "unknown".into()),
                confidence: p.confidence,
                claim_count: p.claim_count,
                contested_claims: contested,
                low_confidence_claims: low,
                contradictions: p.contradictions.len(),
                path: p.path,
            }
        })
        .collect();
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(listed)
}

fn keep(page: &Listed, args: &Args) -> bool {
    args.kind.as_ref().is_none_or(|k| *k == page.kind)
        && (!args.stale || page.freshness == "stale")
        && (!args.contested || page.contested())
        && (!args.low_confidence || page.low_confidence())
}

/// Run `wiki list`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        wiki_cli::output::default_format(Format::Jsonl),
        &[Format::Text, Format::Json, Format::Jsonl],
    )?;
    let vault = global.vault_dir()?;
    let agent = global.agent_id()?;
    let Some(digest) = crate::context::read_digest(&vault, agent.as_deref()) else {
        return Err(CliError::Runtime(format!(
            "{}: no compiled digest ({}); run `wiki compile` first",
            vault.display(),
            wiki_parse::layout::AGENT_DIGEST_PATH
        )));
    };
    let claims =
        crate::context::read_cache(&vault, agent.as_deref(), wiki_parse::layout::CLAIMS_PATH)
            .unwrap_or_default();
    let listed: Vec<Listed> = pages(&digest, &claims)?
        .into_iter()
        .filter(|p| keep(p, args))
        .collect();
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&listed)?,
        Format::Text => {
            let paint = Painter::stdout(global);
            let width = listed.iter().map(|p| p.path.len()).max().unwrap_or(0);
            for p in &listed {
                let tags = p.tags();
                let mut line = format!(
                    "{}{}  {}",
                    paint.paint(Style::Path, &p.path),
                    " ".repeat(width - p.path.len()),
                    p.title
                );
                if !tags.is_empty() {
                    line.push_str(
                        &paint.paint(Style::Warning, &format!("  [{}]", tags.join(", "))),
                    );
                }
                out.line(&line)?;
            }
        }
        _ => {
            for p in &listed {
                out.record(p)?;
            }
        }
    }
    out.flush()?;
    Ok(if listed.is_empty() {
        exit::FOUND
    } else {
        exit::OK
    })
}
