//! The commands: `config`, `status`, `doctor`, `context`, `obsidian`, `list`.

pub mod config;
pub mod context;
pub mod list;
pub mod obsidian;
pub mod status;
