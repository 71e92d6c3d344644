//! The commands: `config`, `status`, `doctor`, `context`, `obsidian`.

pub mod config;
