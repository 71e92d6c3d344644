//! # wiki-apply — narrow mutations, provenance, history, rollback, agent branches
//!
//! Agents change the wiki only through narrow operations, and every change is a git commit that
//! can be explained (`wiki history`) and undone (`wiki rollback`).
//!
//! ## `wiki apply` (binary `wiki-apply`)
//!
//! Reads **one JSON operation per line** on stdin (or `--file FILE`); `wiki apply synthesis
//! <title> …` and `wiki apply metadata <lookup> …` are the original CLI's shortcuts with its flags
//! (`--body`/`--body-file`, `--source-id`, `--contradiction`, `--question`, `--confidence`,
//! `--clear-confidence`, `--status`). The operations and their fields are in [`ops`] and in the
//! JSON Schema `crates/wiki-apply/schema/operation.schema.json`:
//!
//! ```text
//! {"op":"create_synthesis","title":"Alpha","body":"…","sourceIds":["source.alpha"]}
//! {"op":"update_metadata","lookup":"entity.alpha","status":"review","confidence":null}
//! {"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.db","text":"…","confidence":0.8,
//!  "evidence":[{"sourceId":"source.alpha","lines":"12-18"}]}
//! {"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}
//! {"op":"add_evidence","claimId":"claim.alpha.db","evidence":{"sourceId":"source.beta"}}
//! {"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db.v2","text":"…"}
//! {"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"works-with"}
//! {"op":"add_question","page":"alpha","question":"Who owns backups?"}
//! {"op":"resolve_contradiction","page":"alpha","contradiction":"PG vs MySQL?"}
//! ```
//!
//! A batch is **atomic**: every line is parsed and validated first; then, under the vault lock,
//! the operations are applied in order to an in-memory view of the branch ([`edit::Workspace`]);
//! the first invalid operation (bad field, page or claim not found) stops everything, nothing is
//! written, the exit status is 2 and stderr names the line and field:
//! `wiki-apply: error: <stdin>:3: claims[0].confidence must be a number between 0 and 1; received 1.5.`
//! A valid batch is compiled (`wiki-digest`: Related blocks, indexes, dashboards,
//! `agent-digest.json`, `claims.jsonl`) and written as **one commit** by `wiki-store` (atomic
//! file writes, compare-and-swap ref update, crash journal), with one trailer set per operation
//! that changed something:
//!
//! ```text
//! wiki apply: 2 operations on 1 page
//!
//! Wiki-Op: update_claim
//! Wiki-Page: entities/alpha.md
//! Wiki-Claim: claim.alpha.db
//! Wiki-Agent: main
//! Wiki-Op: add_evidence
//! Wiki-Page: entities/alpha.md
//! Wiki-Claim: claim.alpha.db
//! Wiki-Agent: main
//! Wiki-Source: source.beta
//! ```
//!
//! Output (JSON Lines, default): per operation
//! `{"type":"result","op":"update_claim","changed":true,"pagePath":"entities/alpha.md","pageId":"entity.alpha","commit":"<id>"}`
//! (`commit` is `null` when the batch changed nothing), then
//! `{"type":"summary","operations","changed","commit","agent","branch","files","compiled","retries","dryRun"}`.
//! `--format text` prints the original sentences (`Updated <page> via <op>. Refreshed <n> index
//! files.` / `No changes for <page> via <op>. Indexes unchanged.`); `--json` one document.
//! `--dry-run` prints the unified diff of every file that would change and writes nothing.
//! Operations never touch human blocks, never rewrite a body outside their own managed block,
//! never reset fields they were not given, and replaying a batch that already took effect
//! changes no page (so a batch can be re-run after a crash). A batch that changes no page is
//! still compiled, as the original's operations always are: pages edited by hand since the last
//! compile are then reflected, in a commit with `wiki compile`'s subject and trailers
//! (`Compile wiki vault: N files updated`, `Wiki-Op: compile`); with nothing pending, nothing
//! is committed.
//!
//! `--stream` keeps the process running for an agent that issues operations one by one: every
//! input line (one operation, or a JSON array of operations) is applied as its own batch and
//! commit as soon as it arrives, and its records are printed and flushed before the next line is
//! read. A line that fails prints `{"type":"error","line":N,"message":"<stdin>:N: …"}` (and the
//! error on stderr) and the stream goes on; the exit status is then 2. Each batch reads the
//! vault again exactly like a separate run (hand edits, other writers and branch switches in
//! between are seen), so the output is the same as running the lines one by one, and so is the
//! time a batch takes (`docs/BENCHMARKS.md`, Apply: a resident process alone saves nothing
//! measurable per operation).
//!
//! Concurrent writers take the vault lock; the ref update is a compare-and-swap against the tip
//! the batch read, and when something else (a plain `git commit`) moved the branch, the batch is
//! re-read and re-applied on the new tip (up to [`session::MAX_ATTEMPTS`] times) or fails clearly
//! with nothing written.
//!
//! ## `wiki history <page id | path | claim id>`
//!
//! The commits that changed a page (followed by path along first parents) or a claim (by id, on
//! the pages holding it now), newest first (`--order oldest`), as `{"type":"history",…}` JSON
//! Lines or text. Claim entries list what changed: `text`, `status`, `confidence`, `evidence`,
//! `validFrom`, `validUntil`, `supersedes`, `supersededBy`. Commits without a `Wiki-Op` trailer
//! (made by hand) are included with `"manual": true`. See [`history`].
//!
//! ## `wiki rollback <commit>`
//!
//! A new commit undoing one commit's vault changes, merged three ways with what came later, and
//! recompiled; refused (exit 1, naming the pages) when later commits changed the same lines,
//! unless `--force` or `--keep-later`; twice is a no-op. See [`rollback`].
//!
//! ## Agents: `--agent ID`, `wiki agent list|create`
//!
//! `--agent ID` (or `$WIKI_AGENT`) reads from and commits to the branch `agents/<ID>` without
//! checking it out; the main work tree, index and ref are not touched. The first write of an agent
//! whose branch does not exist creates it from the current branch. Without an agent, commands
//! use the current branch (the default agent). Reading another agent's branch is a knowledge
//! boundary, not a security boundary (`docs/agents.md`). See [`agent`].
//!
//! ## Exit status
//!
//! 0 done (including "nothing to change"); 1 `history` found nothing, or `rollback` refused
//! because of conflicting later changes; 2 usage or runtime error (invalid operation, page not
//! found, not a vault, git failure, lock timeout).

pub mod agent;
pub mod cmd;
pub mod diff;
pub mod edit;
pub mod error;
pub mod files;
pub mod history;
pub mod ops;
pub mod rollback;
pub mod session;

/// The JSON Schema of one operation (`schema/operation.schema.json`): what `wiki apply` reads
/// per line and what `wiki mcp`'s `wiki_apply` tool takes.
pub const OPERATION_SCHEMA: &str = include_str!("../schema/operation.schema.json");

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "apply",
            "Apply narrow wiki mutations (JSON Lines on stdin, or synthesis/metadata) as one commit",
            cmd::apply::Args,
            cmd::apply::run
        ),
        wiki_cli::subcommand!(
            "history",
            "List the commits that changed a page or a claim",
            cmd::history::Args,
            cmd::history::run
        ),
        wiki_cli::subcommand!(
            "rollback",
            "Undo one commit's vault changes with a new commit",
            cmd::rollback::Args,
            cmd::rollback::run
        ),
        wiki_cli::subcommand!(
            "agent",
            "Per-agent branches: list and create agents/<ID>",
            cmd::agent::Args,
            cmd::agent::run
        ),
        wiki_cli::subcommand!(
            "gc",
            "Pack loose git objects (file versions as deltas) to keep the repository small",
            cmd::gc::Args,
            cmd::gc::run
        ),
    ]
}
