//! Integration tests of wiki-store against real git repositories.

mod common;

mod branch;
mod branches;
mod concurrency;
mod human;
mod maintain;
mod perf;
mod read;
mod recovery;
mod safety;
mod subfolder;
mod write;
