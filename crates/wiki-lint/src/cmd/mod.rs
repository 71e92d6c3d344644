//! The commands of this crate, one module each: [`check`] is the `wiki-lint` plumbing binary,
//! [`lint`] is `wiki lint` (compile, lint, write the report, commit), [`hooks`] is `wiki hooks`.

pub mod check;
pub mod hooks;
pub mod lint;
