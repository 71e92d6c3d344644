//! Commands: `wiki compile` (porcelain, [`compile`]) and `wiki-digest` / `wiki digest`
//! (plumbing, [`digest`]).

pub mod compile;
pub mod digest;
