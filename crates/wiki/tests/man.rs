//! Man pages in `man/` must match the clap definitions. Regenerate with `scripts/gen-man`.

use std::path::Path;

#[test]
fn man_pages_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../man");
    let pages = wiki::man::pages();
    if std::env::var_os("WIKI_UPDATE_MAN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "1") {
                std::fs::remove_file(p).unwrap();
            }
        }
        for (name, bytes) in &pages {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        return;
    }
    let mut stale = Vec::new();
    for (name, bytes) in &pages {
        match std::fs::read(dir.join(name)) {
            Ok(existing) if &existing == bytes => {}
            _ => stale.push(name.clone()),
        }
    }
    let mut extra = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".1") && !pages.iter().any(|(n, _)| *n == name) {
            extra.push(name);
        }
    }
    assert!(
        stale.is_empty() && extra.is_empty(),
        "man pages are stale: {stale:?}, extra: {extra:?}; run scripts/gen-man"
    );
}
