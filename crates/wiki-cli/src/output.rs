//! The output convention of the toolchain, defined once.
//!
//! * **Porcelain** (`wiki <command>`) prints text for people by default; `--json` (one JSON
//!   document) and `--format jsonl` (JSON Lines, one record with a `type` field per line) give
//!   data. The dispatcher calls [`set_porcelain`] before running a command, and commands ask
//!   [`default_format`] for their default.
//! * **Plumbing** (`wiki-parse`, `wiki-apply`, …) keeps its data default (JSON Lines).
//! * **Colour** only in text, only on a terminal: `--color auto` (default) colours when stdout is a
//!   terminal, `$NO_COLOR` is unset or empty and `$TERM` is not `dumb`; `--color always` /
//!   `never` force it ([`Painter`]).
//! * **Large results are summarised** in text: counts, the first few paths, "and N more"
//!   ([`summarize`]).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{Format, GlobalArgs};

static PORCELAIN: AtomicBool = AtomicBool::new(false);
static ONE_LINE_JSON: AtomicBool = AtomicBool::new(false);

/// How many paths a text summary names before "and N more".
pub const SUMMARY_PATHS: usize = 5;

/// When to colour text output (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `$NO_COLOR` is set (non-empty) or `$TERM` is `dumb`.
    #[default]
    Auto,
    /// Always, even into a pipe or a file.
    Always,
    /// Never.
    Never,
}

/// Mark this process as the porcelain `wiki` dispatcher: commands default to text.
pub fn set_porcelain() {
    PORCELAIN.store(true, Ordering::Relaxed);
}

/// Whether this process is the porcelain dispatcher (see [`set_porcelain`]).
pub fn is_porcelain() -> bool {
    PORCELAIN.load(Ordering::Relaxed)
}

/// Print JSON documents on one line (`--format jsonl` for a command whose data is one document).
pub fn set_one_line_json() {
    ONE_LINE_JSON.store(true, Ordering::Relaxed);
}

/// Whether JSON documents go on one line (see [`set_one_line_json`]).
pub fn one_line_json() -> bool {
    ONE_LINE_JSON.load(Ordering::Relaxed)
}

/// A command's default format: text under the porcelain dispatcher, else `plumbing` (the
/// component binary's data format).
pub fn default_format(plumbing: Format) -> Format {
    if is_porcelain() {
        Format::Text
    } else {
        plumbing
    }
}

/// Whether text written to stdout should be coloured under `choice`, with the environment given
/// explicitly (testable): `no_color` is `$NO_COLOR`, `term` is `$TERM`.
pub fn color_enabled(
    choice: ColorChoice,
    stdout_is_terminal: bool,
    no_color: Option<&str>,
    term: Option<&str>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            stdout_is_terminal && no_color.is_none_or(str::is_empty) && term != Some("dumb")
        }
    }
}

/// Styles of the text output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Errors (red, bold).
    Error,
    /// Warnings (yellow).
    Warning,
    /// Paths and locations (bold).
    Path,
    /// Identifiers such as codes and commit ids (cyan).
    Id,
    /// Secondary text (dim).
    Dim,
    /// Good news (green).
    Ok,
}

impl Style {
    fn sgr(self) -> &'static str {
        match self {
            Style::Error => "1;31",
            Style::Warning => "33",
            Style::Path => "1",
            Style::Id => "36",
            Style::Dim => "2",
            Style::Ok => "32",
        }
    }
}

/// Colours text when enabled (ANSI SGR sequences), else returns it as is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Painter {
    enabled: bool,
}

impl Painter {
    /// A painter that colours when `enabled`.
    pub fn new(enabled: bool) -> Painter {
        Painter { enabled }
    }

    /// The painter for stdout under the global `--color` flag and the environment.
    pub fn stdout(global: &GlobalArgs) -> Painter {
        let no_color = std::env::var("NO_COLOR").ok();
        let term = std::env::var("TERM").ok();
        Painter::new(color_enabled(
            global.color,
            std::io::stdout().is_terminal(),
            no_color.as_deref(),
            term.as_deref(),
        ))
    }

    /// Whether this painter colours.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// `text` in `style`.
    pub fn paint(&self, style: Style, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{}m{text}\x1b[0m", style.sgr())
        } else {
            text.to_string()
        }
    }
}

/// `a, b, c` for up to `max` items; `a, b, c and 7 more` beyond (nothing for none).
pub fn summarize<S: AsRef<str>>(items: &[S], max: usize) -> String {
    let shown: Vec<&str> = items.iter().take(max).map(AsRef::as_ref).collect();
    let mut text = shown.join(", ");
    if items.len() > max {
        text.push_str(&format!(" and {} more", items.len() - max));
    }
    text
}

/// `1 page`, `2 pages`: a count with the singular or plural noun.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_rules() {
        use ColorChoice::*;
        assert!(color_enabled(Auto, true, None, Some("xterm")));
        assert!(!color_enabled(Auto, false, None, Some("xterm")));
        assert!(!color_enabled(Auto, true, Some("1"), Some("xterm")));
        assert!(color_enabled(Auto, true, Some(""), None));
        assert!(!color_enabled(Auto, true, None, Some("dumb")));
        assert!(color_enabled(Always, false, Some("1"), Some("dumb")));
        assert!(!color_enabled(Never, true, None, None));
    }

    #[test]
    fn summaries() {
        let none: [&str; 0] = [];
        assert_eq!(summarize(&none, 3), "");
        assert_eq!(summarize(&["a", "b"], 3), "a, b");
        assert_eq!(
            summarize(&["a", "b", "c", "d", "e"], 3),
            "a, b, c and 2 more"
        );
        assert_eq!(count(1, "page", "pages"), "1 page");
        assert_eq!(count(0, "page", "pages"), "0 pages");
    }

    #[test]
    fn painting() {
        assert_eq!(Painter::new(false).paint(Style::Error, "x"), "x");
        assert_eq!(
            Painter::new(true).paint(Style::Error, "x"),
            "\x1b[1;31mx\x1b[0m"
        );
    }
}
