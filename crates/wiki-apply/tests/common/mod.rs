//! Shared fixtures for the wiki-apply end-to-end tests: a small vault in a real git repository.
#![allow(dead_code)]

pub use wiki_testkit::{Run, Vault};

pub const ALPHA: &str = "---
pageType: entity
id: entity.alpha
title: Alpha
aliases: [Al]
sourceIds: [source.alpha]
claims:
  - id: claim.alpha.db
    text: Alpha uses PostgreSQL for the primary database.
    status: supported
    confidence: 0.9
    evidence:
      - sourceId: source.alpha
        lines: \"12-18\"
    updatedAt: 2026-03-20T00:00:00.000Z
questions:
  - Who owns the backup policy?
confidence: 0.8
updatedAt: 2026-03-25T09:30:00.000Z
---

# Alpha

Alpha is a person.   
Trailing spaces and a tab\there stay.

## Notes
<!-- openclaw:human:start -->
Human note: do not touch.
<!-- openclaw:human:end -->
";

pub const SOURCE: &str = "---
pageType: source
id: source.alpha
title: Alpha Source
---

# Alpha Source

line one
";

/// A vault with `.openclaw-wiki/`, two pages, committed on `main` (one commit, not compiled).
pub fn raw_vault() -> Vault {
    let v = Vault::with_git();
    v.write(".openclaw-wiki/state.json", "{}\n");
    v.write("entities/alpha.md", ALPHA);
    v.write("sources/alpha.md", SOURCE);
    v.commit_all("initial vault");
    v
}

/// [`raw_vault`] compiled (`wiki compile` through the library, pinned clock): two commits, and
/// later applies only refresh what they affect.
pub fn vault() -> Vault {
    let v = raw_vault();
    compile(&v);
    v
}

/// Compile the work tree and commit the result (like `wiki compile`: the derived caches are
/// written beside the commit), with the pinned clock.
pub fn compile(v: &Vault) {
    compile_with(v, false);
}

/// [`compile`]; with `track_caches`, the compiled caches are committed too, as vaults made
/// before they became derived files have them.
pub fn compile_with(v: &Vault, track_caches: bool) {
    let store = wiki_store::Store::open_with(
        &v.root,
        wiki_store::EnvSource::fixed([
            ("WIKI_NOW", "2026-04-05T12:00:00Z"),
            ("GIT_AUTHOR_NAME", wiki_testkit::TEST_NAME),
            ("GIT_AUTHOR_EMAIL", wiki_testkit::TEST_EMAIL),
        ]),
    )
    .expect("store");
    let snap = wiki_vault::Snapshot::from_worktree(store.vault_dir()).expect("snapshot");
    let now: jiff::Timestamp = "2026-04-05T12:00:00Z".parse().unwrap();
    let result = wiki_digest::compile(&snap, &wiki_digest::CompileOptions::new(now));
    let prepared = wiki_digest::derived::prepare(&result.changes, &[]);
    let changes: &[wiki_store::Change] = if track_caches {
        &result.changes
    } else {
        &prepared.commit
    };
    let req = wiki_store::CommitRequest::new(wiki_store::Target::Head, changes, "Compile")
        .trailer("Wiki-Op", "compile");
    store.commit(&req).expect("commit");
    if !track_caches {
        prepared.write(&v.root, None).expect("write caches");
    }
}

/// Run `wiki-apply` with `lines` on stdin.
pub fn apply(v: &Vault, args: &[&str], lines: &[&str]) -> Run {
    let mut input = lines.join("\n");
    input.push('\n');
    v.run_stdin("wiki-apply", args, Some(input.as_bytes()))
}

/// `git rev-parse <rev>`.
pub fn rev(v: &Vault, r: &str) -> String {
    v.git(&["rev-parse", r]).trim().to_string()
}

/// A file at a revision (`git show rev:path`).
pub fn show(v: &Vault, rev_path: &str) -> String {
    v.git(&["show", rev_path])
}

/// The body of a page (everything after the closing `---` line).
pub fn body(text: &str) -> &str {
    let start = text.find("\n---\n").expect("frontmatter") + 5;
    &text[start..]
}

/// The compiled `entities/alpha.md` of [`vault`] (ALPHA plus its Related block).
pub fn alpha0(v: &Vault) -> String {
    show(v, "HEAD^{/^Compile}:entities/alpha.md")
}
