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
//! of memory at once call [`bulk_memory`], and commands about to read one into memory (an
//! operation, an incremental compile, lint) call [`huge_pages_after`], which keeps huge
//! pages only where they are cheap to fault in. `wiki-search` keeps the system allocator: its
//! served searches are mostly process start, and mimalloc's start costs about 0.4 ms. (It
//! depends on this crate through `wiki-parse`, whose binary uses it, but refers to nothing in
//! it, so no mimalloc code is linked into it: checked with `strings`.)

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
    set_purge_delay(PURGE_DELAY_MS);
}

/// Set mimalloc's purge delay to `ms` unless `MIMALLOC_PURGE_DELAY` is in the environment.
fn set_purge_delay(ms: std::ffi::c_long) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option (mimalloc reads it at each purge decision).
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms) }
    }
}

/// How long (ms) an operation batch lets mimalloc keep freed memory ([`keep_freed_memory`]):
/// longer than one operation on a 10,000-page vault takes, short against a batch of 1,000.
const BATCH_PURGE_DELAY_MS: std::ffi::c_long = 250;

/// For a process that reads a vault's worth of caches into memory and exits soon after (an
/// operation batch): mimalloc keeps freed memory for [`BATCH_PURGE_DELAY_MS`] instead of
/// returning it after [`PURGE_DELAY_MS`] and faulting it in again for the next buffer. On a
/// 10,000-page vault one operation took ~30% fewer page faults (45,000 -> 31,000 without huge
/// pages) and 142 -> 127 ms median back to back (16 + 16 alternating operations). Large
/// batches do not call it (a batch of 1,000 mixed operations peaked at 329 MB with it, ~270 MB
/// without). An explicit `MIMALLOC_PURGE_DELAY` in the environment wins.
pub fn keep_freed_memory() {
    set_purge_delay(BATCH_PURGE_DELAY_MS);
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

/// How recently the memory a command is about to use was freed by another process for huge pages
/// to pay off (see [`huge_pages_after`]): the Linux page reporting worker hands free 2 MiB
/// blocks back to the host about 2 s after they are freed; operations on a 10,000-page vault
/// 0.25 s and 0.5 s apart still found them in place (with huge pages 180 / 189 ms median,
/// without 228 / 257 ms), 1 s apart no longer (314 vs 225 ms; `docs/BENCHMARKS.md`).
pub const HOT_WINDOW: std::time::Duration = std::time::Duration::from_millis(500);

/// How many memory-heavy commands in a row, each starting within [`HOT_WINDOW`] of the end of
/// the previous one, make a run of them (a script applying operation after operation) in which
/// huge pages are taken up although the previous command did not use them: the first command
/// with huge pages after commands without them finds few backed 2 MiB blocks and pays for it once
/// (~340 ms instead of ~185 ms for an operation on a 10,000-page vault), the following ones gain
/// (~140 ms). Two commands in a row (an operation, then a lint) stay without.
pub const RUN_LENGTH: u32 = 3;

/// What the previous memory-heavy command left behind (recorded by the caller, see
/// [`MemoryState`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastRun {
    /// How long ago it ended.
    pub age: std::time::Duration,
    /// Its state.
    pub state: MemoryState,
}

/// What a memory-heavy command records when it ends: whether it used huge pages and how many
/// commands in a row (itself included) started within [`HOT_WINDOW`] of the previous one's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryState {
    /// Transparent huge pages were on.
    pub huge_pages: bool,
    /// Commands in a row, at least 1.
    pub streak: u32,
}

impl MemoryState {
    /// The one-line text form (`huge-pages 1 streak 3`).
    pub fn encode(&self) -> String {
        format!(
            "huge-pages {} streak {}\n",
            u8::from(self.huge_pages),
            self.streak
        )
    }

    /// Read [`MemoryState::encode`]'s form (`None`: anything else).
    pub fn decode(text: &str) -> Option<MemoryState> {
        let mut words = text.split_ascii_whitespace();
        let huge_pages = match (words.next()?, words.next()?) {
            ("huge-pages", "1") => true,
            ("huge-pages", "0") => false,
            _ => return None,
        };
        let streak = match (words.next()?, words.next()?) {
            ("streak", n) => n.parse().ok().filter(|n| *n >= 1)?,
            _ => return None,
        };
        words
            .next()
            .is_none()
            .then_some(MemoryState { huge_pages, streak })
    }
}

/// What [`huge_pages_after`] chose, and why (for traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HugePages {
    /// Transparent huge pages as the allocator asks for them: no free page reporting, or
    /// `WIKI_HUGE_PAGES=on`.
    Used,
    /// Used: the previous command used them and ended less than [`HOT_WINDOW`] ago.
    UsedAfterHugePages,
    /// Used: the [`RUN_LENGTH`]th command of a run.
    UsedInRun,
    /// `WIKI_HUGE_PAGES=off`.
    OffByEnvironment,
    /// Free page reporting is on and the previous command ended [`HOT_WINDOW`] ago or more (or
    /// is unknown).
    OffColdMemory,
    /// Free page reporting is on and the previous command, recent, did not use huge pages.
    OffAfterSmallPages,
    /// The command touches too little memory for huge pages to pay (a small vault).
    OffSmallMemory,
}

impl HugePages {
    /// Whether huge pages are on.
    pub fn used(self) -> bool {
        matches!(
            self,
            HugePages::Used | HugePages::UsedAfterHugePages | HugePages::UsedInRun
        )
    }
}

/// For a command about to touch a vault's worth of memory (an operation on a large vault), given
/// what the previous such command left behind (`None`: unknown): keep transparent huge pages,
/// or turn them off for the rest of the process ([`bulk_memory`]). Returns the choice and the
/// state this command is to record when it ends.
///
/// On a virtual machine whose memory balloon reports free pages to the host (virtio-balloon
/// free page reporting, `VIRTIO_BALLOON_F_REPORTING`), free 2 MiB blocks are returned to the
/// host a moment after they are freed, and a huge page faulted in from one then costs the guest
/// about 2 ms per MiB (the host backs it again page by page) instead of about 0.05 ms: on the
/// 2-core benchmark machine an operation on a 10,000-page vault took 438 ms median with huge
/// pages when operations were 4 s apart, 192 ms without (and 145 vs 182 ms back to back,
/// where the memory the previous operation freed is still backed). The blocks a command freed
/// are backed only if it used huge pages itself: right after an operation without them, one
/// with them took ~340 ms. So with free page reporting huge pages are kept when the previous
/// command used them and ended less than [`HOT_WINDOW`] ago, or in a run of [`RUN_LENGTH`]
/// commands; elsewhere (bare metal, no reporting) they are always kept. A command that will
/// touch little memory (`large` false: a small vault) goes without them whatever came before:
/// on the benchmark machine an operation on a 1,000-page vault took 32.9 ms median with them
/// and 28.6 ms without, back to back (p90 43.5 / 37.5 ms), and huge pages always lengthened the
/// tail. `WIKI_HUGE_PAGES=on|off` overrides the choice.
pub fn huge_pages_after(last: Option<LastRun>, large: bool) -> (HugePages, MemoryState) {
    let setting = std::env::var("WIKI_HUGE_PAGES").ok();
    let (choice, state) = choose_huge_pages(setting.as_deref(), last, large, free_page_reporting);
    if !choice.used() {
        bulk_memory();
    }
    (choice, state)
}

/// The state a command that turned huge pages off by itself ([`bulk_memory`]: a compile of the
/// whole vault) records, after `last`.
pub fn without_huge_pages(last: Option<LastRun>) -> MemoryState {
    MemoryState {
        huge_pages: false,
        streak: streak_after(last),
    }
}

fn streak_after(last: Option<LastRun>) -> u32 {
    match last {
        Some(l) if l.age < HOT_WINDOW => l.state.streak.saturating_add(1),
        _ => 1,
    }
}

/// The choice of [`huge_pages_after`] from `WIKI_HUGE_PAGES`, the previous command, the memory
/// the command will touch and (asked only when needed: it reads sysfs) whether free page
/// reporting is on.
fn choose_huge_pages(
    setting: Option<&str>,
    last: Option<LastRun>,
    large: bool,
    reporting: impl FnOnce() -> bool,
) -> (HugePages, MemoryState) {
    let streak = streak_after(last);
    let recent_huge = last.is_some_and(|l| l.age < HOT_WINDOW && l.state.huge_pages);
    let choice = match setting {
        Some("on") => HugePages::Used,
        Some("off") => HugePages::OffByEnvironment,
        _ if !large => HugePages::OffSmallMemory,
        _ if recent_huge => HugePages::UsedAfterHugePages,
        _ if !reporting() => HugePages::Used,
        _ if streak >= RUN_LENGTH => HugePages::UsedInRun,
        _ if streak > 1 => HugePages::OffAfterSmallPages,
        _ => HugePages::OffColdMemory,
    };
    let state = MemoryState {
        huge_pages: choice.used(),
        streak,
    };
    (choice, state)
}

/// Whether a virtio memory balloon with free page reporting is bound on this machine (Linux
/// sysfs: a virtio device of type 5 with feature bit 5 set and a driver).
pub fn free_page_reporting() -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(devices) = std::fs::read_dir("/sys/bus/virtio/devices") else {
            return false;
        };
        devices.flatten().any(|d| {
            let dir = d.path();
            let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
            balloon_reports_free_pages(&read("device"), &read("features"))
                && dir.join("driver").exists()
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Whether a virtio device's sysfs `device` and `features` files describe a memory balloon
/// (device id 5) that negotiated free page reporting (feature bit 5; `features` lists the bits
/// as `0`/`1` characters, bit 0 first).
fn balloon_reports_free_pages(device: &str, features: &str) -> bool {
    const BALLOON: u32 = 5;
    const REPORTING_BIT: usize = 5;
    let id = device.trim();
    let id = id.strip_prefix("0x").unwrap_or(id);
    u32::from_str_radix(id, 16) == Ok(BALLOON)
        && features.trim().as_bytes().get(REPORTING_BIT) == Some(&b'1')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run test `name` of this binary alone in a child process with `vars` set (`None`:
    /// removed) and return what it printed after `probe=` (settings read once per process are
    /// checked in fresh ones).
    fn probe_in_child(name: &str, vars: &[(&str, Option<&str>)]) -> String {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", name, "--nocapture", "--test-threads=1"]);
        for (k, v) in vars.iter() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        let stdout = String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned();
        let value = stdout
            .split("probe=")
            .nth(1)
            .unwrap_or_else(|| panic!("no probe output in {stdout:?}"));
        value.lines().next().unwrap_or_default().to_string()
    }

    /// Reads the option in a fresh process (mimalloc reads its environment once, at start).
    #[test]
    fn purge_delay_is_the_option_mimalloc_reads_from_its_environment() {
        if let Some(mode) = std::env::var_os("WIKI_ALLOC_PROBE") {
            if mode == "configure" {
                configure();
            }
            if mode == "keep" {
                configure();
                keep_freed_memory();
            }
            // SAFETY: reads one integer option.
            println!("probe={}", unsafe {
                libmimalloc_sys::mi_option_get(PURGE_DELAY)
            });
            return;
        }
        let probe = |mode: &str, env: Option<&str>| {
            let vars = [
                ("WIKI_ALLOC_PROBE", Some(mode)),
                ("MIMALLOC_PURGE_DELAY", env),
            ];
            probe_in_child(
                "tests::purge_delay_is_the_option_mimalloc_reads_from_its_environment",
                &vars,
            )
        };
        assert_eq!(probe("read", Some("4321")), "4321");
        assert_eq!(probe("configure", None), PURGE_DELAY_MS.to_string());
        assert_eq!(probe("configure", Some("250")), "250");
        assert_eq!(probe("keep", None), BATCH_PURGE_DELAY_MS.to_string());
        assert_eq!(probe("keep", Some("250")), "250");
    }

    #[test]
    fn huge_pages_choice() {
        use std::time::Duration;
        let run = |ms: u64, huge_pages: bool, streak: u32| {
            Some(LastRun {
                age: Duration::from_millis(ms),
                state: MemoryState { huge_pages, streak },
            })
        };
        let never = || -> bool { panic!("sysfs read although not needed") };
        let choose = |setting, last, reporting: bool| {
            let (choice, state) = choose_huge_pages(setting, last, true, || reporting);
            assert_eq!(state.huge_pages, choice.used());
            (choice, state.streak)
        };
        assert_eq!(
            choose_huge_pages(Some("on"), None, true, never).0,
            HugePages::Used
        );
        assert_eq!(
            choose_huge_pages(Some("off"), run(1, true, 4), true, never),
            (
                HugePages::OffByEnvironment,
                MemoryState {
                    huge_pages: false,
                    streak: 5
                }
            )
        );
        // The previous command used huge pages and ended recently: the blocks it freed are
        // likely still backed (sysfs is not read).
        assert_eq!(
            choose_huge_pages(None, run(100, true, 1), true, never).0,
            HugePages::UsedAfterHugePages
        );
        assert_eq!(
            choose_huge_pages(Some("auto"), run(499, true, 7), true, never),
            (
                HugePages::UsedAfterHugePages,
                MemoryState {
                    huge_pages: true,
                    streak: 8
                }
            )
        );
        // Old or unknown: cold memory, a new run starts.
        for last in [run(500, true, 3), run(4000, false, 9), None] {
            assert_eq!(choose(None, last, true), (HugePages::OffColdMemory, 1));
            assert_eq!(choose(None, last, false), (HugePages::Used, 1));
        }
        // Recent but without huge pages: off until the run is long enough.
        assert_eq!(
            choose(None, run(10, false, 1), true),
            (HugePages::OffAfterSmallPages, 2)
        );
        assert_eq!(
            choose(None, run(10, false, RUN_LENGTH - 1), true),
            (HugePages::UsedInRun, RUN_LENGTH)
        );
        assert_eq!(choose(None, run(10, false, 1), false), (HugePages::Used, 2));
        // A small vault: off whatever came before (sysfs is not read), the run goes on; the
        // environment still decides.
        for last in [run(100, true, 1), run(10, false, RUN_LENGTH - 1), None] {
            let (choice, state) = choose_huge_pages(None, last, false, never);
            assert_eq!(choice, HugePages::OffSmallMemory);
            assert_eq!(state, without_huge_pages(last));
        }
        assert_eq!(
            choose_huge_pages(Some("on"), None, false, never).0,
            HugePages::Used
        );
        assert_eq!(
            choose_huge_pages(Some("off"), None, false, never).0,
            HugePages::OffByEnvironment
        );
        // A command that turned them off by itself.
        assert_eq!(
            without_huge_pages(run(10, true, 2)),
            MemoryState {
                huge_pages: false,
                streak: 3
            }
        );
        assert_eq!(without_huge_pages(run(600, true, 2)).streak, 1);
    }

    #[test]
    fn memory_state_text() {
        let state = MemoryState {
            huge_pages: true,
            streak: 12,
        };
        assert_eq!(state.encode(), "huge-pages 1 streak 12\n");
        assert_eq!(MemoryState::decode(&state.encode()), Some(state));
        assert_eq!(
            MemoryState::decode("huge-pages 0 streak 1"),
            Some(MemoryState {
                huge_pages: false,
                streak: 1
            })
        );
        for bad in [
            "",
            "huge-pages 2 streak 1",
            "huge-pages 1 streak 0",
            "huge-pages 1 streak x",
            "huge-pages 1",
            "huge-pages 1 streak 1 more",
            "streak 1 huge-pages 1",
        ] {
            assert_eq!(MemoryState::decode(bad), None, "{bad:?}");
        }
    }

    /// The choice takes effect for the whole process (Linux reports it in `/proc/self/status`).
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_off_disables_them_for_the_process() {
        let thp = || {
            std::fs::read_to_string("/proc/self/status")
                .unwrap()
                .lines()
                .find_map(|l| l.strip_prefix("THP_enabled:").map(|v| v.trim().to_string()))
        };
        if let Some(size) = std::env::var_os("WIKI_ALLOC_THP_PROBE") {
            let before = thp();
            let (choice, _) = huge_pages_after(None, size == "large");
            println!("probe={before:?} {choice:?} {:?}", thp());
            return;
        }
        let probe_sized = |setting: &str, size: &str| {
            probe_in_child(
                "tests::huge_pages_off_disables_them_for_the_process",
                &[
                    ("WIKI_ALLOC_THP_PROBE", Some(size)),
                    ("WIKI_HUGE_PAGES", Some(setting)),
                ],
            )
        };
        let probe = |setting: &str| probe_sized(setting, "large");
        assert_eq!(probe("off"), r#"Some("1") OffByEnvironment Some("0")"#);
        assert_eq!(probe("on"), r#"Some("1") Used Some("1")"#);
        assert_eq!(
            probe_sized("auto", "small"),
            r#"Some("1") OffSmallMemory Some("0")"#
        );
        assert_eq!(probe_sized("on", "small"), r#"Some("1") Used Some("1")"#);
    }

    #[test]
    fn balloon_feature_bits() {
        let with = "0110010100000000000000000000000010000000\n";
        let without = "0110000100000000000000000000000010000000\n";
        assert!(balloon_reports_free_pages("0x0005\n", with));
        assert!(!balloon_reports_free_pages("0x0005\n", without));
        assert!(!balloon_reports_free_pages("0x0002\n", with));
        assert!(!balloon_reports_free_pages("", ""));
        assert!(!balloon_reports_free_pages("0x0005", "01100"));
    }
}
