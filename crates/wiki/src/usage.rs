//! What the dispatcher tells a person about its command line: the short usage of `wiki` alone,
//! "did you mean" for an unknown command, the examples that `-h` shows per command, and the
//! usage lines that clap cannot derive truthfully by itself.

/// Examples per built-in command: `(command line, what it does)`, shown by `wiki <cmd> -h`.
/// A test checks that every built-in command has two or three and that each one parses.
pub const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "init",
        &[
            (
                "wiki init",
                "Make the current directory a vault (git init included)",
            ),
            ("wiki init ~/notes/wiki", "Make ~/notes/wiki a vault"),
            (
                "wiki init notes --render-mode obsidian",
                "A vault for Obsidian in the sub-folder notes",
            ),
        ],
    ),
    (
        "new",
        &[
            (
                "wiki new entity 'Billing Service'",
                "Start entities/billing-service.md",
            ),
            (
                "wiki new concept 'Vector search' --id concept.vectors",
                "A concept page with a chosen id",
            ),
        ],
    ),
    (
        "list",
        &[
            ("wiki list", "Every page of the compiled digest"),
            (
                "wiki list --kind entity --stale",
                "Entities whose freshness is stale",
            ),
            (
                "wiki list --contested --json",
                "Pages with contested claims, as JSON",
            ),
        ],
    ),
    (
        "completions",
        &[
            (
                "wiki completions bash > ~/.local/share/bash-completion/completions/wiki",
                "Completions for bash",
            ),
            (
                "wiki completions zsh > ~/.zfunc/_wiki",
                "Completions for zsh",
            ),
            (
                "wiki completions fish > ~/.config/fish/completions/wiki.fish",
                "Completions for fish",
            ),
        ],
    ),
    (
        "parse",
        &[
            (
                "wiki parse",
                "Every page of the vault as JSON Lines records",
            ),
            (
                "wiki parse entities/alpha.md --frontmatter",
                "One page's record with its frontmatter",
            ),
        ],
    ),
    (
        "compile",
        &[
            (
                "wiki compile",
                "Refresh Related blocks, indexes and the digest; commit them",
            ),
            (
                "wiki compile --check",
                "Exit 1 when the compiled files are stale (CI)",
            ),
        ],
    ),
    (
        "digest",
        &[
            ("wiki digest --claims", "Print the claims.jsonl lines"),
            ("wiki digest --digest", "Print the agent digest"),
            (
                "wiki digest --report contradictions",
                "Print a dashboard's body",
            ),
        ],
    ),
    (
        "lint",
        &[
            (
                "wiki lint",
                "Findings as path:line: code: message, then the summary",
            ),
            ("wiki lint --deny warning", "Also exit 1 on warnings"),
            ("wiki lint --format github", "GitHub Actions annotations"),
        ],
    ),
    (
        "hooks",
        &[
            (
                "wiki hooks install",
                "Lint staged pages before every git commit",
            ),
            (
                "wiki hooks install --deny warning",
                "Block commits on warnings too",
            ),
        ],
    ),
    (
        "search",
        &[
            (
                "wiki search vector database",
                "Rank the wiki's pages for a query",
            ),
            (
                "wiki search --corpus all alice",
                "Search the wiki and the memory files",
            ),
            (
                "wiki search --json --max-results 3 tar",
                "The top three results as JSON",
            ),
        ],
    ),
    (
        "get",
        &[
            ("wiki get entities/alpha.md", "Print a page by path"),
            (
                "wiki get entity.alpha --from 10 --lines 20",
                "Lines 10 to 29 of a page by id",
            ),
        ],
    ),
    (
        "index",
        &[
            ("wiki index", "Refresh the search index"),
            ("wiki index --rebuild", "Rebuild it from scratch"),
        ],
    ),
    (
        "apply",
        &[
            (
                "echo '{\"op\":\"add_question\",\"page\":\"entity.alpha\",\"question\":\"Why?\"}' | wiki apply",
                "Apply JSON Lines operations from stdin as one commit",
            ),
            (
                "wiki apply synthesis 'Weekly review' --body 'What changed.'",
                "Create or refresh a synthesis page",
            ),
            (
                "wiki apply metadata entity.alpha --source-id source.notes --dry-run",
                "Show the diff of a metadata change",
            ),
        ],
    ),
    (
        "history",
        &[
            (
                "wiki history entities/alpha.md",
                "The commits that changed a page",
            ),
            (
                "wiki history claim.alpha.role --order oldest",
                "A claim's changes, oldest first",
            ),
        ],
    ),
    (
        "rollback",
        &[
            (
                "wiki rollback HEAD",
                "Undo the last commit with a new commit",
            ),
            (
                "wiki rollback abc1234 --dry-run",
                "Show what undoing a commit would change",
            ),
            (
                "wiki rollback abc1234 --keep-later",
                "Undo it, keeping later edits of the same lines",
            ),
        ],
    ),
    (
        "agent",
        &[
            ("wiki agent list", "The agent branches and their tips"),
            (
                "wiki agent create support",
                "Create the branch agents/support",
            ),
            (
                "wiki --agent support lint",
                "Lint the agent's branch without checking it out",
            ),
        ],
    ),
    (
        "gc",
        &[
            ("wiki gc", "Pack the repository now"),
            ("wiki gc --json", "Object counts before and after as JSON"),
        ],
    ),
    (
        "ingest",
        &[
            (
                "wiki ingest notes/meeting.md",
                "Bring a file in as a source page",
            ),
            (
                "wiki ingest ~/papers --json",
                "A whole directory, the result as JSON",
            ),
            (
                "wiki ingest https://example.com/post --title 'A post'",
                "A web page with a title",
            ),
        ],
    ),
    (
        "okf",
        &[
            (
                "wiki okf import ./bundle",
                "Import an OKF bundle as concept pages",
            ),
            (
                "wiki okf import ./bundle --json",
                "The same, the result as JSON",
            ),
        ],
    ),
    (
        "bridge",
        &[
            (
                "wiki bridge import",
                "Import the agent workspaces' public memory files",
            ),
            (
                "wiki bridge import --workspace ~/agent",
                "Import one workspace",
            ),
        ],
    ),
    (
        "unsafe-local",
        &[
            (
                "wiki unsafe-local import",
                "Import the configured private paths",
            ),
            (
                "wiki unsafe-local import --json",
                "The same, the result as JSON",
            ),
        ],
    ),
    (
        "chatgpt",
        &[
            (
                "wiki chatgpt import --export ~/chatgpt-export",
                "Import a ChatGPT export",
            ),
            (
                "wiki chatgpt import --export export.zip --dry-run",
                "Show what it would import",
            ),
            ("wiki chatgpt rollback run-1", "Undo an import run"),
        ],
    ),
    (
        "status",
        &[
            ("wiki status", "Mode, pages, git state and warnings"),
            ("wiki status --json", "The same as JSON"),
        ],
    ),
    (
        "doctor",
        &[
            (
                "wiki doctor",
                "Check the vault and print the command that fixes each finding",
            ),
            ("wiki doctor --json", "The findings and fixes as JSON"),
        ],
    ),
    (
        "context",
        &[
            ("wiki context", "The prompt digest for an agent"),
            ("wiki context --max-chars 2000", "A shorter one"),
        ],
    ),
    (
        "mcp",
        &[
            ("wiki mcp", "Serve the vault to an MCP client on stdio"),
            (
                "wiki --agent support mcp --workspace ~/agents/support",
                "As the agent support: its branch and its memory workspace",
            ),
        ],
    ),
    (
        "obsidian",
        &[
            (
                "wiki obsidian status",
                "Whether the Obsidian CLI is installed",
            ),
            ("wiki obsidian search alpha", "Search the vault in Obsidian"),
            (
                "wiki obsidian open entities/alpha.md",
                "Open a page in Obsidian",
            ),
        ],
    ),
    (
        "config",
        &[
            (
                "wiki config show",
                "The effective config and where each value came from",
            ),
            ("wiki config show --json", "The same as JSON"),
        ],
    ),
    (
        "memory",
        &[
            ("wiki memory status", "The memory workspace at a glance"),
            ("wiki memory search deploy", "Search the memory files"),
            (
                "wiki memory recall 'what did alice decide'",
                "Recall facts and passages",
            ),
        ],
    ),
];

/// The examples of `command`, if it has any.
pub fn examples(command: &str) -> Option<&'static [(&'static str, &'static str)]> {
    EXAMPLES
        .iter()
        .find(|(name, _)| *name == command)
        .map(|(_, ex)| *ex)
}

/// The `Examples:` section shown after a command's help.
pub fn examples_help(examples: &[(&str, &str)]) -> String {
    let mut text = String::from("Examples:\n");
    for (line, what) in examples {
        text.push_str(&format!("  # {what}\n  {line}\n"));
    }
    text.pop();
    text
}

/// Usage lines that clap derives wrongly: a positional argument that is required unless a flag
/// is given shows as optional (`[QUERY]...`).
pub fn usage_override(command: &str) -> Option<&'static str> {
    match command {
        "search" => Some(
            "wiki search [OPTIONS] <QUERY>...\n       \
             wiki search --server <ACTION>\n       \
             wiki search --serve [OPTIONS]",
        ),
        _ => None,
    }
}

/// The commands listed by the short usage of `wiki` alone, in that order.
const COMMON: &[&str] = &[
    "init", "new", "list", "compile", "lint", "search", "get", "apply", "history", "rollback",
    "status",
];

/// The short usage printed (on stderr) by `wiki` without a command.
pub fn short_usage(builtin: &[wiki_cli::Subcommand]) -> String {
    let mut text = String::from(
        "usage: wiki [--vault DIR] [--agent ID] [--json | --format FORMAT] <COMMAND> [ARGS]\n\n\
         Common commands:\n",
    );
    for name in COMMON {
        if let Some(sub) = builtin.iter().find(|c| c.name == *name) {
            let about = (sub.command)()
                .get_about()
                .map(|a| a.to_string())
                .unwrap_or_default();
            text.push_str(&format!("  {name:<10} {about}\n"));
        }
    }
    text.push_str(
        "\nSee 'wiki --help' for every command and option, 'wiki <COMMAND> -h' for examples.\n",
    );
    text
}

/// The known commands closest to the unknown `name`, best first (at most three).
pub fn suggestions<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, k)| k).collect()
}

/// The error for an unknown command, with the closest commands when there are any.
pub fn unknown_command(name: &str, known: &[&str]) -> String {
    let mut text = format!(
        "'{name}' is not a wiki command (no built-in and no `wiki-{name}` on PATH). See 'wiki --help'."
    );
    let close = suggestions(name, known.iter().copied());
    match close.as_slice() {
        [] => {}
        [one] => text.push_str(&format!("\n\nThe most similar command is\n\t{one}")),
        many => {
            text.push_str("\n\nThe most similar commands are");
            for c in many {
                text.push_str(&format!("\n\t{c}"));
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_commands() {
        let known = ["search", "status", "lint", "init", "index", "get"];
        assert_eq!(suggestions("serch", known), vec!["search"]);
        assert_eq!(suggestions("lnit", known), vec!["lint", "init"]);
        assert!(suggestions("frobnicate", known).is_empty());
    }
}
