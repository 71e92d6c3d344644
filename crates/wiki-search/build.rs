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

/// The C libraries a Rust binary links on linux-gnu (`-lgcc_s` stands for the unwinder).
const LIBS: [&str; 6] = ["c", "m", "pthread", "dl", "rt", "util"];

/// The absolute path of a static library the C compiler finds (`None` when it has none).
fn static_lib(cc: &str, name: &str) -> Option<PathBuf> {
    let out = std::process::Command::new(cc)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // Without the library the compiler echoes the bare name.
    (path.is_absolute() && path.is_file()).then_some(path)
}

/// Link the `wiki-search` binary statically on linux-gnu when the C toolchain has the static
/// libraries (see `main`); otherwise leave the usual dynamic link alone.
fn link_static() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    if os != "linux" || env != "gnu" || host != target || std::env::var_os("WIKI_DYNAMIC").is_some()
    {
        return;
    }
    println!("cargo:rerun-if-env-changed=WIKI_DYNAMIC");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut scripts = Vec::new();
    for lib in LIBS {
        let Some(archive) = static_lib(&cc, &format!("lib{lib}.a")) else {
            return;
        };
        scripts.push((lib, format!("GROUP({})\n", archive.display())));
    }
    if static_lib(&cc, "libgcc_eh.a").is_none() {
        return;
    }
    scripts.push(("gcc_s", "INPUT(-lgcc_eh)\n".to_string()));
    let Some(out) = std::env::var_os("OUT_DIR").map(|d| PathBuf::from(d).join("static-libs"))
    else {
        return;
    };
    if std::fs::create_dir_all(&out).is_err() {
        return;
    }
    for (lib, script) in &scripts {
        if std::fs::write(out.join(format!("lib{lib}.so")), script).is_err() {
            return;
        }
    }
    // rustc asks for these libraries as shared ones (`-Bdynamic -lc ...`); the linker finds
    // these scripts first, each naming the static archive, and `-static` makes a static
    // executable of the result (no program interpreter, no shared library).
    println!("cargo:rustc-link-arg-bins=-L{}", out.display());
    println!("cargo:rustc-link-arg-bins=-static");
}

fn main() {
    // Process start is most of a served search (a client that connects, asks and prints). On
    // linux-gnu the binary is linked as a static, position-dependent executable: no dynamic
    // loader, no shared libraries to map and relocate, no load-time relocations of its own
    // (about 0.3 ms a run, `docs/BENCHMARKS.md`). The code is compiled as usual; only the link
    // changes. `WIKI_DYNAMIC=1` at build time, a cross build, or a C toolchain without the
    // static libraries keeps the dynamic link.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    link_static();
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
