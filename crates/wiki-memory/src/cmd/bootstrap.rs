//! `wiki memory bootstrap`: what a session start loads, within its budgets.

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer, say};
use crate::config::{DEFAULT_BOOTSTRAP_MAX_CHARS, DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS};
use crate::error::{Error, Result};
use crate::{time, workspace};

/// Print the memory a session start injects: MEMORY.md (or memory.md), then yesterday's and
/// today's daily notes (`memory/YYYY-MM-DD.md` and their `-<slug>` variants).
///
/// Each file is injected up to the per-file budget (`--file-budget`, else the config's
/// `bootstrapMaxChars`, default 20,000 characters) and all of them up to the total budget
/// (`--budget`, else `bootstrapTotalMaxChars`, default 150,000). A file over budget is injected
/// truncated — its first 70% and last 20% of the budget around a marker naming the file — and
/// stderr says so; the file itself is never changed. Text output: each file as `## <path>` and
/// its injected text; `--json`: `{"type":"file","path","kind","chars","injectedChars",
/// "truncated","content"}` records and a `{"type":"bootstrap"}` total. Exit status 1 when
/// something was truncated or left out.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Total budget of the injected files, in characters.
    #[arg(long, value_name = "CHARS")]
    pub budget: Option<usize>,

    /// Budget of each file, in characters.
    #[arg(long, value_name = "CHARS")]
    pub file_budget: Option<usize>,
}

/// Share of a truncated file's budget kept from its start.
const HEAD_RATIO: f64 = 0.7;
/// Share kept from its end.
const TAIL_RATIO: f64 = 0.2;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileRecord<'a> {
    #[serde(rename = "type")]
    kind_tag: &'static str,
    path: &'a str,
    kind: &'static str,
    chars: usize,
    injected_chars: usize,
    truncated: bool,
    content: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Total {
    #[serde(rename = "type")]
    kind: &'static str,
    files: usize,
    chars: usize,
    injected_chars: usize,
    budget: usize,
    file_budget: usize,
    truncated: Vec<String>,
    left_out: Vec<String>,
}

fn take_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn last_chars(s: &str, n: usize) -> &str {
    let total = s.chars().count();
    match s.char_indices().nth(total.saturating_sub(n)) {
        Some((i, _)) if n > 0 => &s[i..],
        _ => "",
    }
}

/// `text` within `budget` characters: unchanged when it fits, else its head and tail around a
/// marker naming `path`; with the number of characters of `text` kept.
pub fn fit(text: &str, budget: usize, path: &str) -> (String, usize) {
    let chars = text.chars().count();
    if chars <= budget {
        return (text.to_string(), chars);
    }
    let head = take_chars(text, (budget as f64 * HEAD_RATIO) as usize);
    let tail = last_chars(text, (budget as f64 * TAIL_RATIO) as usize);
    let kept = head.chars().count() + tail.chars().count();
    let marker =
        format!("\n[… truncated: kept {kept} of {chars} characters; read {path} for the rest …]\n");
    (format!("{head}{marker}{tail}"), kept)
}

/// The files a session start loads, in order.
fn files(ctx: &Ctx) -> Vec<String> {
    let today = time::day_of(ctx.now);
    let yesterday = today.yesterday().unwrap_or(today);
    let mut out = vec![
        ctx.ws
            .existing_or_first(&workspace::CURATED_FILES)
            .to_string(),
    ];
    let notes = ctx.ws.daily_notes();
    for day in [yesterday, today] {
        out.extend(
            notes
                .iter()
                .filter(|(d, _)| *d == day)
                .map(|(_, p)| p.clone()),
        );
    }
    out
}

/// Run `wiki memory bootstrap`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let cfg = crate::config::load(ctx.agent.as_deref()).unwrap_or_default();
    let total_budget = args
        .budget
        .or(cfg.bootstrap_total_max_chars)
        .unwrap_or(DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS);
    let file_budget = args
        .file_budget
        .or(cfg.bootstrap_max_chars)
        .unwrap_or(DEFAULT_BOOTSTRAP_MAX_CHARS);
    if total_budget == 0 || file_budget == 0 {
        return Err(Error::Usage("budgets must be at least 1 character".into()));
    }
    let mut p = Printer::new(ctx.json(false)?);
    let mut total = Total {
        kind: "bootstrap",
        files: 0,
        chars: 0,
        injected_chars: 0,
        budget: total_budget,
        file_budget,
        truncated: Vec::new(),
        left_out: Vec::new(),
    };
    let mut exhausted = false;
    for path in files(ctx) {
        let Some(text) = ctx.ws.read(&path)? else {
            continue;
        };
        let chars = text.chars().count();
        total.chars += chars;
        let room = total_budget.saturating_sub(total.injected_chars);
        if exhausted || room == 0 {
            say(&format!(
                "{path}: {chars} characters not injected: the total budget of {total_budget} is used up"
            ));
            total.left_out.push(path);
            continue;
        }
        let (injected, kept) = fit(&text, file_budget.min(room), &path);
        let truncated = kept < chars;
        if truncated {
            say(&format!(
                "{path}: {chars} characters, {kept} injected (truncated copy; the file is unchanged)"
            ));
            total.truncated.push(path.clone());
            // A file cut by the total budget uses it up.
            exhausted = room <= file_budget;
        }
        total.files += 1;
        total.injected_chars += kept;
        p.record(&FileRecord {
            kind_tag: "file",
            path: &path,
            kind: workspace::kind_of(&path).label(),
            chars,
            injected_chars: kept,
            truncated,
            content: &injected,
        })?;
        p.line(&format!("## {path}\n\n{}", injected.trim_end()))?;
        p.line("")?;
    }
    let found = !total.truncated.is_empty() || !total.left_out.is_empty();
    p.record(&total)?;
    p.line(&format!(
        "({} files, {} of {} characters injected; budgets {} per file, {} in all)",
        total.files, total.injected_chars, total.chars, file_budget, total_budget
    ))?;
    p.flush()?;
    Ok(if found { exit::FOUND } else { exit::OK })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_head_and_tail() {
        assert_eq!(fit("short", 10, "M.md"), ("short".to_string(), 5));
        let (t, kept) = fit("abcdefghijklmnopqrstuvwxyz", 10, "M.md");
        assert_eq!(kept, 9);
        assert_eq!(
            t,
            "abcdefg\n[… truncated: kept 9 of 26 characters; read M.md for the rest …]\nyz"
        );
    }
}
