//! The memory allocator of the binaries that compile and apply (`wiki`, `wiki-apply`,
//! `wiki-digest`, `wiki-lint`, `wiki-parse`): mimalloc.
//!
//! Compile and apply build millions of small strings (the parsed pages of a vault, from the parse
//! cache) and megabyte buffers (the digest, the dashboards): on a 10,000-page vault one
//! operation takes about a third less time than with the system allocator
//! (`docs/BENCHMARKS.md`). Each of those binaries declares
//!
//! ```text
//! #[global_allocator]
//! static GLOBAL: wiki_alloc::Allocator = wiki_alloc::Allocator;
//! ```
//!
//! and calls [`configure`] first thing in `main`; commands about to touch a whole vault's worth
//! of memory at once call [`bulk_memory`]. `wiki-search` keeps the system allocator: its served
//! searches are mostly process start, and mimalloc's start costs about 0.4 ms. (It depends on
//! this crate through `wiki-parse`, whose binary uses it, but refers to nothing in it, so no
//! mimalloc code is linked into it: checked with `strings`.)

/// The allocator type to declare as `#[global_allocator]`.
pub use mimalloc::MiMalloc as Allocator;

/// `mi_option_purge_delay` of mimalloc v3 (`include/mimalloc.h`: the options are a C enum,
/// stable within a major version, and the Rust bindings leave this one unnamed). Checked by
/// the tests against the option mimalloc reads from `MIMALLOC_PURGE_DELAY`.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long (ms) mimalloc keeps freed memory before returning it to the system: its default
/// (1 s) raises the peak RSS of a 10,000-page compile from about 260 MB (system allocator) to
/// 360 MB, over the 300 MB budget of the compile benchmark; 0 (return at once) costs time in a
/// full compile (every large buffer freed is unmapped and faulted in again); 10 ms (mimalloc's
/// own documented value) keeps both: ~280 MB for a forced compile with huge pages, and the
/// speed.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Allocator settings, before the program allocates much (see [`PURGE_DELAY_MS`]). An explicit
/// `MIMALLOC_PURGE_DELAY` in the environment wins.
pub fn configure() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option; called at the start of `main`, before other threads.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
    }
}

/// For commands about to touch a whole vault's worth of memory at once (a compile without a
/// parse cache, `--force`): no transparent huge pages for the rest of the process (Linux
/// `PR_SET_THP_DISABLE`; nothing elsewhere, and a refusal is ignored). mimalloc's arenas ask
/// for huge pages, which make the many small page faults of an operation on a large vault
/// cheaper (about a third of its time) but cost a cold compile of 10,000 pages about 13% of its
/// time and 45 MB of peak memory (zeroing and splitting huge pages it only partly uses;
/// `docs/BENCHMARKS.md`).
pub fn bulk_memory() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the option in a fresh process (mimalloc reads its environment once, at start).
    #[test]
    fn purge_delay_is_the_option_mimalloc_reads_from_its_environment() {
        if let Some(mode) = std::env::var_os("WIKI_ALLOC_PROBE") {
            if mode == "configure" {
                configure();
            }
            // SAFETY: reads one integer option.
            println!("probe={}", unsafe {
                libmimalloc_sys::mi_option_get(PURGE_DELAY)
            });
            return;
        }
        let probe = |mode: &str, env: Option<&str>| {
            let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
            cmd.args([
                "--exact",
                "tests::purge_delay_is_the_option_mimalloc_reads_from_its_environment",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("WIKI_ALLOC_PROBE", mode)
            .env_remove("MIMALLOC_PURGE_DELAY");
            if let Some(v) = env {
                cmd.env("MIMALLOC_PURGE_DELAY", v);
            }
            let out = cmd.output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            let value = stdout
                .split("probe=")
                .nth(1)
                .unwrap_or_else(|| panic!("no probe output in {stdout:?}"));
            value.lines().next().unwrap_or_default().to_string()
        };
        assert_eq!(probe("read", Some("4321")), "4321");
        assert_eq!(probe("configure", None), PURGE_DELAY_MS.to_string());
        assert_eq!(probe("configure", Some("250")), "250");
    }
}
