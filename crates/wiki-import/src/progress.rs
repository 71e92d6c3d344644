//! Progress on stderr for imports of many files: shown only when stderr is a terminal and the
//! import has more than [`THRESHOLD`] items (nothing at all otherwise: pipes, logs and CI stay
//! clean).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Imports of more items than this show progress.
pub const THRESHOLD: usize = 200;

/// A progress bar that may be absent.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar over `len` items described by `what` (`reading files`), when worth showing.
    pub fn new(len: usize, what: &str) -> Progress {
        if len <= THRESHOLD || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(len as u64);
        let style = ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(what.to_string());
        Progress(Some(bar))
    }

    /// One more item done.
    pub fn inc(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }

    /// Switch to a step without a count (`compiling and committing`).
    pub fn step(&self, what: &str) {
        if let Some(b) = &self.0 {
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.set_message(what.to_string());
            b.enable_steady_tick(std::time::Duration::from_millis(120));
        }
    }

    /// Remove the bar from the terminal.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
