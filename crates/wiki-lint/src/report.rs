//! `reports/lint.md` (reference §6.3), byte for byte as the original writes it.
//!
//! The file starts (when missing) as frontmatter `pageType: report`, `id: report.lint`,
//! `title: Lint Report`, `status: active` and the body `# Lint Report`; lint then replaces its
//! `## Generated` block (`<!-- openclaw:wiki:lint:start|end -->`). Everything outside the block
//! is left alone. The block body is `No issues found.`, or the counts followed by the sections
//! `### Errors`, `### Warnings`, `### Contradictions`, `### Open Questions` and
//! `### Quality Follow-Up` (provenance findings, then quality findings), each only when
//! non-empty; a finding is listed under its severity and again under its category. Link
//! findings appear under Warnings only, as in the original.

use wiki_parse::markers::{self, Block};

use crate::diagnostic::{Category, Counts, Diagnostic, Severity};

/// Vault-relative path of the lint report.
pub const REPORT_PATH: &str = "reports/lint.md";

fn line(d: &Diagnostic) -> String {
    format!("- `{}`: {}", d.path, d.message)
}

/// The body of the `## Generated` block for these findings (sorted as [`crate::check::lint`]
/// returns them).
pub fn report_body(diagnostics: &[Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return "No issues found.".into();
    }
    let counts = Counts::of(diagnostics);
    let mut lines = vec![
        format!("- Errors: {}", counts.errors),
        format!("- Warnings: {}", counts.warnings),
    ];
    let mut section = |title: &str, items: Vec<&Diagnostic>| {
        if !items.is_empty() {
            lines.push(String::new());
            lines.push(format!("### {title}"));
            lines.extend(items.into_iter().map(line));
        }
    };
    let by_severity = |s: Severity| diagnostics.iter().filter(move |d| d.severity == s);
    let by_category = |c: Category| diagnostics.iter().filter(move |d| d.category == c);
    section("Errors", by_severity(Severity::Error).collect());
    section("Warnings", by_severity(Severity::Warning).collect());
    section(
        "Contradictions",
        by_category(Category::Contradictions).collect(),
    );
    section(
        "Open Questions",
        by_category(Category::OpenQuestions).collect(),
    );
    section(
        "Quality Follow-Up",
        by_category(Category::Provenance)
            .chain(by_category(Category::Quality))
            .collect(),
    );
    lines.join("\n")
}

/// The page a missing report starts from.
pub fn initial_report() -> String {
    let mut fm = yaml_serde::Mapping::new();
    for (k, v) in [
        ("pageType", "report"),
        ("id", "report.lint"),
        ("title", "Lint Report"),
        ("status", "active"),
    ] {
        fm.insert(k.into(), v.into());
    }
    wiki_parse::page::render_page(&fm, "# Lint Report\n")
}

/// The new content of `reports/lint.md` given its current content (`None` when missing).
pub fn render_report(existing: Option<&str>, diagnostics: &[Diagnostic]) -> String {
    let original = match existing {
        Some(text) => text.to_string(),
        None => initial_report(),
    };
    let mut out = markers::replace_managed_block(
        &original,
        &Block::report("lint"),
        &report_body(diagnostics),
    );
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    #[test]
    fn empty_report() {
        assert_eq!(
            render_report(None, &[]),
            "---\npageType: report\nid: report.lint\ntitle: Lint Report\nstatus: active\n---\n\n# Lint Report\n\n## Generated\n<!-- openclaw:wiki:lint:start -->\nNo issues found.\n<!-- openclaw:wiki:lint:end -->\n"
        );
    }

    #[test]
    fn sections() {
        let d = vec![
            Diagnostic::new(Code::MissingId, "a.md", None, "E1".into()),
            Diagnostic::new(Code::BrokenWikilink, "a.md", None, "L1".into()),
            Diagnostic::new(Code::StalePage, "a.md", None, "Q1".into()),
            Diagnostic::new(Code::MissingSourceIds, "b.md", None, "P1".into()),
        ];
        assert_eq!(
            report_body(&d),
            "- Errors: 1\n- Warnings: 3\n\n### Errors\n- `a.md`: E1\n\n### Warnings\n- `a.md`: L1\n- `a.md`: Q1\n- `b.md`: P1\n\n### Quality Follow-Up\n- `b.md`: P1\n- `a.md`: Q1"
        );
    }
}
