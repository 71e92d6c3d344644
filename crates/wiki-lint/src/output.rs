//! Printing findings: JSON Lines (default), text, and GitHub Actions annotations.
//!
//! * `jsonl`: one `{"type":"diagnostic",...}` record per finding, then `{"type":"summary",...}`
//!   (see [`crate::diagnostic`]).
//! * `text`: `path:line: code: message` (`path: code: …` when the finding has no line), like a
//!   compiler or linter, then a count line such as `5 errors, 27 warnings in 14 pages`. On a
//!   terminal (see [`wiki_cli::output::Painter`]) the path is bold and the code red for errors,
//!   yellow for warnings.
//! * `github`: `::error file=<path>,line=<n>,title=<code>::<message>` (`::warning` for
//!   warnings), the workflow-command syntax GitHub Actions turns into annotations on the changed
//!   files. The path is relative to the repository root (the vault's path inside the repository
//!   is prepended when the vault is a sub-folder), because GitHub resolves annotation paths
//!   against the checkout. The count line goes to stderr so stdout holds annotations only.

use wiki_cli::output::{Painter, Style};
use wiki_cli::{CliError, Format, Output};

use crate::diagnostic::{Counts, Diagnostic, DiagnosticRecord, Severity, Summary};

/// Escape the message of a workflow command (`%`, CR, LF).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value of a workflow command (also `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One GitHub annotation line. `prefix` is prepended to the vault-relative path.
pub fn github_line(d: &Diagnostic, prefix: &str) -> String {
    let mut props = format!("file={}", escape_property(&format!("{prefix}{}", d.path)));
    if let Some(line) = d.line {
        props.push_str(&format!(",line={line}"));
    }
    props.push_str(&format!(",title={}", d.code.as_str()));
    format!(
        "::{} {props}::{}",
        d.severity.as_str(),
        escape_data(&d.message)
    )
}

/// One text line: `path:line: code: message`, painted by `paint`.
pub fn text_line(d: &Diagnostic, paint: &Painter) -> String {
    let place = match d.line {
        Some(line) => format!("{}:{line}", d.path),
        None => d.path.clone(),
    };
    let style = match d.severity {
        Severity::Error => Style::Error,
        Severity::Warning => Style::Warning,
    };
    format!(
        "{}: {}: {}",
        paint.paint(Style::Path, &place),
        paint.paint(style, d.code.as_str()),
        d.message
    )
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `5 errors, 27 warnings in 14 pages`.
pub fn count_line(counts: Counts, pages: usize) -> String {
    format!(
        "{}, {} in {}",
        count(counts.errors, "error", "errors"),
        count(counts.warnings, "warning", "warnings"),
        count(pages, "page", "pages")
    )
}

/// Print findings and the summary in `format` (jsonl, text or github); text is painted by
/// `paint`.
pub fn print(
    program: &str,
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    github_prefix: &str,
    paint: &Painter,
) -> Result<(), CliError> {
    let mut out = Output::new();
    let counts = Counts {
        errors: summary.errors,
        warnings: summary.warnings,
    };
    match format {
        Format::Text => {
            for d in diagnostics {
                out.line(&text_line(d, paint))?;
            }
            out.line(&count_line(counts, summary.pages))?;
        }
        Format::Github => {
            for d in diagnostics {
                out.line(&github_line(d, github_prefix))?;
            }
            out.flush()?;
            wiki_cli::warn(program, &count_line(counts, summary.pages));
        }
        _ => {
            for d in diagnostics {
                out.record(&DiagnosticRecord::from(d))?;
            }
            out.record(summary)?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    #[test]
    fn github_escapes() {
        let d = Diagnostic::new(
            Code::InvalidFrontmatter,
            "a,b:c%.md",
            Some(3),
            "bad\nthing 100%".into(),
        );
        assert_eq!(
            github_line(&d, "notes/"),
            "::error file=notes/a%2Cb%3Ac%25.md,line=3,title=invalid-frontmatter::bad%0Athing 100%25"
        );
        let w = Diagnostic::new(Code::MissingSourceIds, "e/x.md", None, "m".into());
        assert_eq!(
            github_line(&w, ""),
            "::warning file=e/x.md,title=missing-source-ids::m"
        );
    }

    #[test]
    fn text_lines() {
        let d = Diagnostic::new(Code::OpenQuestion, "e/x.md", Some(7), "Q.".into());
        assert_eq!(
            text_line(&d, &Painter::new(false)),
            "e/x.md:7: open-question: Q."
        );
        assert_eq!(
            text_line(&d, &Painter::new(true)),
            "\x1b[1me/x.md:7\x1b[0m: \x1b[33mopen-question\x1b[0m: Q."
        );
        assert_eq!(
            count_line(
                Counts {
                    errors: 1,
                    warnings: 0
                },
                1
            ),
            "1 error, 0 warnings in 1 page"
        );
    }
}
