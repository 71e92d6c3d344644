//! The commands of this crate, one module each (`Args` + `run`), shared by the `wiki-apply`
//! binary and the `wiki` dispatcher.

pub mod agent;
pub mod apply;
pub mod history;
pub mod rollback;

use crate::session::{Compiler, DigestCompiler, NoCompile};

/// The compiler used after operations and rollbacks (`no_compile`: none).
pub fn compiler(no_compile: bool) -> Box<dyn Compiler> {
    if no_compile {
        Box::new(NoCompile)
    } else {
        Box::new(DigestCompiler)
    }
}

/// The running program's name (`wiki` or `wiki-apply`), for `<program>: <message>` lines.
pub fn program() -> String {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "wiki".to_string())
}
