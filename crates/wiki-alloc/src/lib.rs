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
//! and calls [`configure`] first thing in `main`. `wiki-search` keeps the system allocator (and
//! does not link this crate, whose C library initializes itself at process start): its served
//! searches are mostly process start, and mimalloc's start costs about 0.4 ms.

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
/// own documented value) keeps both: ~280 MB, and the speed.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Allocator settings, before the program allocates much (see [`PURGE_DELAY_MS`]). An explicit
/// `MIMALLOC_PURGE_DELAY` in the environment wins.
pub fn configure() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option; called at the start of `main`, before other threads.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
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
