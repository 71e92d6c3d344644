//! Build-script helpers shared by the wiki binaries whose start-up time matters (`wiki-search`,
//! whose served searches are mostly process start, and the `wiki` dispatcher).
//!
//! [`link_fast_start`] links a package's binaries as static, position-dependent executables on
//! linux-gnu: no dynamic loader, no shared libraries to map and relocate, no load-time
//! relocations of their own (about 0.3 ms a run, `docs/BENCHMARKS.md`). The code is compiled as
//! usual; only the link changes. `WIKI_DYNAMIC=1` at build time, a cross build, another target,
//! or a C toolchain without the static libraries keeps the usual dynamic link.
//!
//! Why not `-C target-feature=+crt-static`: as a rustflag without an explicit `--target` it
//! also applies to proc-macro crates, which refuse it on linux-gnu. rustc asks the linker for
//! the C libraries as shared ones (`-Bdynamic -lc -lm ...`); the build script writes, in its
//! `OUT_DIR`, linker scripts named like those shared libraries that name the static archives
//! instead, puts that directory first on the binaries' library path, and adds `-static`.

use std::path::PathBuf;

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

/// Link this package's binaries statically on linux-gnu when the C toolchain has the static
/// libraries (see the crate docs); otherwise leave the usual dynamic link alone.
fn link_static() {
    println!("cargo:rerun-if-env-changed=WIKI_DYNAMIC");
    println!("cargo:rerun-if-env-changed=CC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    if os != "linux" || env != "gnu" || host != target || std::env::var_os("WIKI_DYNAMIC").is_some()
    {
        return;
    }
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

/// Link this package's binaries for a fast start (see the crate docs). Call from `build.rs`.
pub fn link_fast_start() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        // Position-dependent even when the static libraries are missing.
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    link_static();
}
