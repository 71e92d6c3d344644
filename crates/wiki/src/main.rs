//! `wiki`: the dispatcher (see the crate docs).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::FromArgMatches;
use wiki_cli::{CliError, GlobalArgs, exit};

fn find_on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                candidate
                    .metadata()
                    .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                    .unwrap_or(false)
            }
            #[cfg(not(unix))]
            {
                candidate.is_file()
            }
        })
}

fn run_external(global: &GlobalArgs, name: &str, args: &clap::ArgMatches) -> Result<u8, CliError> {
    let program = format!("wiki-{name}");
    let Some(path) = find_on_path(&program) else {
        let known: Vec<&str> = wiki::builtin().iter().map(|c| c.name).collect();
        return Err(CliError::Usage(wiki::usage::unknown_command(name, &known)));
    };
    let rest: Vec<std::ffi::OsString> = args
        .get_many::<std::ffi::OsString>("")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let mut cmd = std::process::Command::new(&path);
    cmd.args(&rest);
    if let Some(v) = &global.vault {
        cmd.env("WIKI_VAULT", v);
    }
    if let Some(a) = &global.agent {
        cmd.env("WIKI_AGENT", a);
    }
    if let Some(n) = &global.now {
        cmd.env("WIKI_NOW", n);
    }
    if global.json || global.format.is_some() {
        cmd.env(
            "WIKI_FORMAT",
            wiki_cli::format_name(global.format_or(wiki_cli::Format::Json)),
        );
    }
    let status = cmd
        .status()
        .map_err(|e| CliError::Runtime(format!("cannot run {}: {e}", path.display())))?;
    Ok(status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .unwrap_or(exit::ERROR))
}

fn main() -> ExitCode {
    // Commits may pack in a detached copy of this binary (see wiki_store::background).
    if let Some(code) = wiki_store::background::main_hook() {
        return code;
    }
    // `wiki search …` that the vault's search server answers needs neither the dispatcher's
    // command line parser nor anything else (same output as the usual way: `run_served_argv`).
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    wiki_cli::output::set_porcelain();
    if argv.len() == 1 {
        eprint!("{}", wiki::usage::short_usage(&wiki::builtin()));
        return ExitCode::from(exit::ERROR);
    }
    if argv.get(1).is_some_and(|a| a == "search") {
        let rest: Vec<std::ffi::OsString> = argv[..1].iter().chain(&argv[2..]).cloned().collect();
        if let Some(code) =
            wiki_search::cmd::search::run_served_argv("wiki", &rest, wiki_cli::Format::Text)
        {
            return code;
        }
    }
    let matches = wiki_cli::get_matches(wiki::cli());
    wiki_cli::main_wrapper("wiki", || {
        let global =
            GlobalArgs::from_arg_matches(&matches).map_err(|e| CliError::Usage(e.to_string()))?;
        let Some((name, sub)) = matches.subcommand() else {
            return Err(CliError::Usage("missing command; see 'wiki --help'".into()));
        };
        match wiki::builtin().into_iter().find(|c| c.name == name) {
            Some(cmd) => {
                if !wiki::WITHOUT_VAULT.contains(&name) {
                    global.require_chosen_vault()?;
                }
                (cmd.run)(&global, sub)
            }
            None => run_external(&global, name, sub),
        }
    })
}
