//! Integration tests of `wiki-lint` and `wiki hooks`: the real binaries on temp vaults in real git
//! repositories, with the clock pinned (`WIKI_NOW=2026-04-05T12:00:00.000Z`).
//!
//! The `wiki` binary is needed by the hook tests: build it first (`cargo build -p wiki-lint -p
//! wiki`, or `scripts/test`).

mod common;

mod checks;
mod cli;
mod hooks;
mod porcelain;
mod staged;
