//! Unified diffs of planned changes (`--dry-run`), in the format `git diff` prints.

use similar::{Algorithm, udiff::unified_diff};

use crate::edit::FileChange;

/// The unified diff of one file change (`diff --git` header, `---`/`+++` lines, hunks with three
/// lines of context). Non-UTF-8 content is shown as `Binary files differ`.
pub fn file_diff(change: &FileChange) -> String {
    let path = &change.path;
    let mut out = format!("diff --git a/{path} b/{path}\n");
    match (&change.before, &change.after) {
        (None, Some(_)) => out.push_str("new file mode 100644\n"),
        (Some(_), None) => out.push_str("deleted file mode 100644\n"),
        _ => {}
    }
    let text = |b: &Option<Vec<u8>>| -> Option<String> {
        match b {
            None => Some(String::new()),
            Some(b) => String::from_utf8(b.clone()).ok(),
        }
    };
    let (Some(old), Some(new)) = (text(&change.before), text(&change.after)) else {
        out.push_str(&format!("Binary files a/{path} and b/{path} differ\n"));
        return out;
    };
    let a = if change.before.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".to_string()
    };
    let b = if change.after.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".to_string()
    };
    out.push_str(&unified_diff(
        Algorithm::Myers,
        &old,
        &new,
        3,
        Some((&a, &b)),
    ));
    out
}

/// The diffs of several changes, in order.
pub fn diff_all<'a>(changes: impl IntoIterator<Item = &'a FileChange>) -> String {
    changes.into_iter().map(file_diff).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_look_like_git() {
        let c = FileChange {
            path: "entities/a.md".into(),
            before: Some(b"a\nb\nc\n".to_vec()),
            after: Some(b"a\nB\nc\n".to_vec()),
            blob: None,
        };
        assert_eq!(
            file_diff(&c),
            "diff --git a/entities/a.md b/entities/a.md\n--- a/entities/a.md\n+++ b/entities/a.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
        let n = FileChange {
            path: "syntheses/x.md".into(),
            before: None,
            after: Some(b"x\n".to_vec()),
            blob: None,
        };
        assert_eq!(
            file_diff(&n),
            "diff --git a/syntheses/x.md b/syntheses/x.md\nnew file mode 100644\n--- /dev/null\n+++ b/syntheses/x.md\n@@ -0,0 +1 @@\n+x\n"
        );
    }
}
