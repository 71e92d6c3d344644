//! `wiki completions <SHELL>`: the shell completion script of `wiki` (clap_complete).

use wiki_cli::{CliError, GlobalArgs, Output, exit};

/// Print the completion script of `wiki` for a shell, to be loaded by it.
///
/// bash: `wiki completions bash > ~/.local/share/bash-completion/completions/wiki`;
/// zsh: `wiki completions zsh > "${fpath[1]}/_wiki"`; fish:
/// `wiki completions fish > ~/.config/fish/completions/wiki.fish`; elvish and PowerShell: source
/// the output from the shell's startup file. The script completes the built-in commands, their
/// options and the values they accept.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The shell: bash, zsh, fish, elvish, powershell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// The completion script of `wiki` for `shell`.
pub fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = crate::cli();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "wiki", &mut buf);
    buf
}

/// Run `wiki completions`.
pub fn run(_global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let mut out = Output::new();
    out.text(&String::from_utf8_lossy(&script(args.shell)))?;
    out.flush()?;
    Ok(exit::OK)
}
