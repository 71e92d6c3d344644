//! The commands of this crate, one module each: [`check`] is the `wiki-lint` plumbing binary,
//! [`hooks`] is `wiki hooks`.

pub mod check;
pub mod hooks;
