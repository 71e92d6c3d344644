//! What every importer writes the same way: fenced content, frontmatter values, and the parts of
//! an existing page a new rendering keeps (the human notes block and the generated `## Related`
//! block), as the original plugin writes them (reference §2.5, §3.2, §11.3).

use yaml_serde::{Mapping, Value};

use wiki_parse::markers::{self, Block};

/// `content` in a fenced block with info string `info`: the fence is backticks, one more than
/// the longest run of backticks in the content and at least three; the content is not trimmed
/// (`renderMarkdownFence`).
pub fn fence(content: &str, info: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in content.bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let ticks = "`".repeat((longest + 1).max(3));
    format!("{ticks}{info}\n{content}\n{ticks}")
}

/// The `## Notes` section every generated source page ends with (an empty human block).
pub fn notes_section() -> String {
    format!("## Notes\n{}\n", markers::empty_human_block())
}

/// A title from a file name: the name without its extension, every run of `-` and `_` made one
/// space, trimmed (`my-note_v2.md` → `my note v2`).
pub fn title_from_file_name(name: &str) -> String {
    let stem = std::path::Path::new(name)
        .file_stem()
        .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned());
    let mut out = String::with_capacity(stem.len());
    let mut in_run = false;
    for c in stem.chars() {
        if c == '-' || c == '_' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out.trim().to_string()
}

/// A YAML string value.
pub fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// A YAML list of strings.
pub fn list<'a>(items: impl IntoIterator<Item = &'a str>) -> Value {
    Value::Sequence(items.into_iter().map(s).collect())
}

/// A mapping from `(key, value)` pairs, in order.
pub fn mapping(pairs: impl IntoIterator<Item = (&'static str, Value)>) -> Mapping {
    let mut m = Mapping::new();
    for (k, v) in pairs {
        m.insert(s(k), v);
    }
    m
}

/// A page file: `---`, the frontmatter, `---`, a blank line, the body (leading whitespace
/// trimmed), ending with a newline.
pub fn page(frontmatter: &Mapping, body: &str) -> String {
    wiki_parse::page::render_page(frontmatter, body)
}

/// `rendered` with the human notes block of `existing` in place of its own (the first human
/// block outside code: markers quoted in a page's fenced content never count), so notes written
/// by hand survive a re-import. Unchanged when either page has no such block.
pub fn keep_human_notes(rendered: &str, existing: &str) -> String {
    let (Some(old), Some(new)) = (
        markers::find_human_block(existing, 0),
        markers::find_human_block(rendered, 0),
    ) else {
        return rendered.to_string();
    };
    let mut out = String::with_capacity(rendered.len() + old.end - old.start);
    out.push_str(&rendered[..new.start]);
    out.push_str(&existing[old.start..old.end]);
    out.push_str(&rendered[new.end..]);
    out
}

/// `rendered` with the generated `## Related` block of `existing` (compile rewrites it; keeping
/// it makes an unchanged import compare equal to the page on disk).
pub fn keep_related(rendered: &str, existing: &str) -> String {
    let block = Block::related();
    match markers::block_body(existing, &block) {
        Some(body) => markers::replace_managed_block(rendered, &block, body.trim()),
        None => rendered.to_string(),
    }
}

/// [`keep_human_notes`] then [`keep_related`]: what a re-import writes over an existing page.
pub fn keep_existing_blocks(rendered: &str, existing: Option<&str>) -> String {
    match existing {
        Some(old) if !old.trim().is_empty() => keep_related(&keep_human_notes(rendered, old), old),
        _ => rendered.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_grows_past_backtick_runs() {
        assert_eq!(fence("a\n", "text"), "```text\na\n\n```");
        assert_eq!(fence("x ```` y", "json"), "`````json\nx ```` y\n`````");
        assert_eq!(fence("", "markdown"), "```markdown\n\n```");
    }

    #[test]
    fn titles_from_file_names() {
        assert_eq!(title_from_file_name("my-note_v2.md"), "my note v2");
        assert_eq!(title_from_file_name("meeting-notes.txt"), "meeting notes");
        assert_eq!(title_from_file_name("a--b__c"), "a b c");
        assert_eq!(title_from_file_name("-x-.md"), "x");
        assert_eq!(title_from_file_name("archive.tar.gz"), "archive.tar");
    }

    #[test]
    fn human_notes_survive_and_quoted_markers_do_not_count() {
        let existing = "# T\n\n## Content\n```text\n<!-- openclaw:human:start -->\nfake\n<!-- openclaw:human:end -->\n```\n\n## Notes\n<!-- openclaw:human:start -->\nmine\n## Notes\n<!-- openclaw:human:end -->\n";
        let rendered = "# T\n\n## Content\n```text\nnew\n```\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n";
        assert_eq!(
            keep_human_notes(rendered, existing),
            "# T\n\n## Content\n```text\nnew\n```\n\n## Notes\n<!-- openclaw:human:start -->\nmine\n## Notes\n<!-- openclaw:human:end -->\n"
        );
    }
}
