//! The commands: `config`, `status`, `doctor`, `context`, `obsidian`.

pub mod config;
pub mod context;
pub mod obsidian;
pub mod status;
