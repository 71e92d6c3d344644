//! `WIKI_STORE_TRACE=1`: phase timings of [`crate::Store::commit`] on stderr
//! (`wiki-store: trace: <phase> <ms> ms`), for benchmarks. Read from the process environment.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    /// When the previous phase ended; `None` when tracing is off.
    static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Start timing a commit (a no-op unless `WIKI_STORE_TRACE` is set to something other than `0`).
pub(crate) fn start() {
    let on = std::env::var_os("WIKI_STORE_TRACE").is_some_and(|v| !v.is_empty() && v != "0");
    LAST.set(on.then(Instant::now));
}

/// End the current phase, printing its duration when tracing.
pub(crate) fn mark(phase: &str) {
    if let Some(last) = LAST.get() {
        let now = Instant::now();
        eprintln!(
            "wiki-store: trace: {phase} {:.1} ms",
            now.duration_since(last).as_secs_f64() * 1000.0
        );
        LAST.set(Some(now));
    }
}
