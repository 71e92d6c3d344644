//! The README's main command (`scripts/demo`) works on the committed example vault.

use std::path::Path;
use std::process::Command;

#[test]
fn demo_script_runs_on_the_example_vault() {
    let wiki = wiki_testkit::bin("wiki");
    let profile_dir = wiki.parent().unwrap();
    let target = profile_dir.parent().unwrap();
    let profile = profile_dir.file_name().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/demo"))
        .env("CARGO_TARGET_DIR", target)
        .env("WIKI_PROFILE", profile);
    wiki_testkit::isolate(&mut cmd, home.path());
    let run = wiki_testkit::output(cmd, None);
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout
            .contains("== wiki init\nInitialized wiki vault at "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("page  entities/alice-martin.md                 entity.alice-martin                claims=1 links=1"),
        "{}",
        run.stdout
    );
    for expected in [
        "compiled files are current\n",
        "1. Alice Martin (wiki/entity)\nPath: entities/alice-martin.md\nClaim: claim.alice.owns-migrations\n",
        "{\"type\":\"result\",\"op\":\"add_evidence\",\"changed\":true,\"pagePath\":\"entities/billing-service.md\"",
        "    evidence: 0 items -> 1 item\n",
        " wiki apply: 2 operations on 1 page\n",
        " Compile wiki vault: ",
        " Initialize wiki vault\n",
    ] {
        assert!(
            run.stdout.contains(expected),
            "missing {expected:?} in:\n{}",
            run.stdout
        );
    }
}
