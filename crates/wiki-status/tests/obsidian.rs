//! `wiki obsidian …` with a fake `obsidian` executable on PATH that records its arguments.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use wiki_testkit::{Run, Vault};

/// A directory holding an `obsidian` script that appends its arguments (one per line, then a
/// `--` line) to `calls.log` and prints `out` (exit code `code`).
fn fake_obsidian(v: &Vault, out: &str, code: i32) -> PathBuf {
    let bin = v.temp().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = v.temp().join("calls.log");
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '{}'; done\necho -- >> '{}'\nprintf '{out}'\necho 'fake stderr' >&2\nexit {code}\n",
        log.display(),
        log.display()
    );
    let exe = bin.join("obsidian");
    std::fs::write(&exe, script).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn calls(v: &Vault) -> String {
    std::fs::read_to_string(v.temp().join("calls.log")).unwrap_or_default()
}

fn run_with_path(v: &Vault, bin: Option<&PathBuf>, args: &[&str]) -> Run {
    let mut cmd = v.command("wiki");
    let path = match bin {
        Some(b) => format!("{}:/usr/bin:/bin", b.display()),
        None => "/usr/bin:/bin".to_string(),
    };
    cmd.args(args).env("PATH", path);
    wiki_testkit::output(cmd, None)
}

fn vault_with_config(config: &str) -> Vault {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    let dir = v.home().join(".openclaw");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openclaw.json"),
        format!("{{ plugins: {{ entries: {{ 'memory-wiki': {{ config: {config} }} }} }} }}"),
    )
    .unwrap();
    v
}

#[test]
fn helpers_pass_the_original_arguments() {
    let v = vault_with_config(
        "{ obsidian: { enabled: true, useOfficialCli: true, vaultName: 'OpenClaw Wiki' } }",
    );
    let bin = fake_obsidian(&v, "", 0);
    let exe = bin.join("obsidian").display().to_string();
    let status = run_with_path(&v, Some(&bin), &["obsidian", "status"]);
    status.expect_code(0);
    assert_eq!(status.stdout, format!("Obsidian CLI available at {exe}\n"));
    let cases: [(&[&str], &str, &str); 4] = [
        (
            &["obsidian", "search", "google meet"],
            "search\nquery=google meet\n",
            "",
        ),
        (
            &["obsidian", "open", "syntheses/alpha.md"],
            "open\npath=syntheses/alpha.md\n",
            "Opened in Obsidian.\n",
        ),
        (
            &["obsidian", "command", "workspace:quick-switcher"],
            "command\nid=workspace:quick-switcher\n",
            "Command sent to Obsidian.\n",
        ),
        (
            &["obsidian", "daily"],
            "daily\n",
            "Opened today's daily note.\n",
        ),
    ];
    for (args, argv, printed) in cases {
        let _ = std::fs::remove_file(v.temp().join("calls.log"));
        let run = run_with_path(&v, Some(&bin), args);
        run.expect_code(0);
        assert_eq!(
            calls(&v),
            format!("vault=OpenClaw Wiki\n{argv}--\n"),
            "{args:?}"
        );
        assert_eq!(run.stdout, printed, "{args:?}");
    }
    // The CLI's own output is printed (trimmed), and --json gives the whole run.
    let bin = fake_obsidian(&v, "  result one\\n", 0);
    let run = run_with_path(&v, Some(&bin), &["obsidian", "search", "x", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["command"], exe);
    assert_eq!(
        doc["argv"],
        serde_json::json!(["vault=OpenClaw Wiki", "search", "query=x"])
    );
    assert_eq!(doc["stdout"], "  result one\n");
    assert_eq!(doc["stderr"], "fake stderr\n");
    let run = run_with_path(&v, Some(&bin), &["obsidian", "search", "x"]);
    assert_eq!(run.stdout, "result one\n");
}

#[test]
fn without_a_vault_name_there_is_no_vault_argument() {
    let v = vault_with_config("{}");
    let bin = fake_obsidian(&v, "", 0);
    run_with_path(&v, Some(&bin), &["obsidian", "open", "index.md"]).expect_code(0);
    assert_eq!(calls(&v), "open\npath=index.md\n--\n");
}

#[test]
fn missing_cli_and_failures_say_so() {
    let v = vault_with_config("{}");
    let run = run_with_path(&v, None, &["obsidian", "status"]);
    run.expect_code(1);
    assert_eq!(run.stdout, "Obsidian CLI is not available on PATH.\n");
    let json = run_with_path(&v, None, &["obsidian", "status", "--json"]);
    assert_eq!(
        json.json(),
        serde_json::json!({"available": false, "command": null})
    );
    let run = run_with_path(&v, None, &["obsidian", "daily"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: Obsidian CLI is not available on PATH.\n"
    );
    let bin = fake_obsidian(&v, "", 3);
    let run = run_with_path(&v, Some(&bin), &["obsidian", "daily"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .starts_with("wiki: error: Obsidian CLI execution failed: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with(": fake stderr\n"), "{}", run.stderr);
}

#[test]
fn agent_scope_refuses_the_official_cli() {
    let v = vault_with_config("{ vault: { scope: 'agent' } }");
    let bin = fake_obsidian(&v, "", 0);
    let run = run_with_path(&v, Some(&bin), &["obsidian", "daily"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: Official Obsidian CLI actions do not support memory-wiki vault.scope=agent.\n"
    );
    assert_eq!(calls(&v), "");
}
