//! Build id of the search server protocol: a hash of everything that decides what a search
//! prints (this crate's sources, the vault model and the CLI plumbing, the locked dependency
//! versions). A client only uses a search server whose build id equals its own, so a server left
//! running across a rebuild or an upgrade is never asked (see `src/server.rs`).

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => files(&p, out),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let crates = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut inputs = Vec::new();
    for krate in ["wiki-search", "wiki-parse", "wiki-cli"] {
        let src = crates.join(krate).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        files(&src, &mut inputs);
    }
    let lock = crates.parent().map(|w| w.join("Cargo.lock"));
    if let Some(lock) = lock.filter(|l| l.is_file()) {
        println!("cargo:rerun-if-changed={}", lock.display());
        inputs.push(lock);
    }
    inputs.sort();
    // FNV-1a, 64 bits, over each file's workspace-relative name and its bytes.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    // Names relative to the workspace, so that two checkouts of the same sources agree.
    let root = crates.parent().map(Path::to_path_buf).unwrap_or_default();
    for p in &inputs {
        let rel = p.strip_prefix(&root).unwrap_or(p);
        eat(rel.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(&std::fs::read(p).unwrap_or_default());
        eat(&[0]);
    }
    println!("cargo:rustc-env=WIKI_SEARCH_BUILD_ID={h:016x}");
}
