//! The idle daemon's resident set: after a busy spell, `cn run` releases the pages of code it
//! ran (start-up's argument parsing, configuration, the reflex compiler, TLS set-up, model
//! calls …) with `madvise(MADV_DONTNEED)` on the executable mappings of the binary and its
//! libraries, and the read-only data those touched (Unicode tables, string constants). The
//! kernel keeps them in the page cache, so what runs again comes back with a minor fault;
//! what stays resident while idle is what the idle loop touches. It also hands the heap's
//! free pages back to the kernel (`malloc_trim`): compiling the reflexes' regexes peaks at a
//! few MB that glibc would otherwise keep.
//!
//! Invariant: only private, read-only file mappings whose pages are all the file's are
//! released — `r-xp` mappings (never written), and `r--p` mappings with no anonymous pages
//! (never written either: RELRO's relocated pages are anonymous, so such a mapping is
//! skipped whole). Writable data (`rw-p`) is never touched.

/// Release the read-only file mappings of this process from its resident set and trim the
/// heap. Returns the bytes advised (0 where this is not supported).
pub fn release_code_pages() -> usize {
    #[cfg(target_os = "linux")]
    {
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else { return 0 };
        let mut released = 0;
        for (start, end) in clean_file_mappings(&smaps) {
            // SAFETY: [start, end) is a whole private mapping of this process, read-only and
            // backed by a file, with no page of its own (no anonymous pages, and it cannot
            // gain one: it is not writable): MADV_DONTNEED only drops its page-table entries,
            // and the next access maps the unchanged file pages again.
            let rc = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
            if rc == 0 {
                released += end - start;
            }
        }
        #[cfg(target_env = "gnu")]
        // SAFETY: malloc_trim only returns free heap memory to the kernel; it takes the
        // allocator's own locks.
        unsafe {
            libc::malloc_trim(0);
        }
        released
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// From `/proc/self/smaps` text: the file-backed mappings that are `r-xp`, or `r--p` with
/// no anonymous pages.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn clean_file_mappings(smaps: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // The mapping being read: its range, whether its header qualifies, whether it is r--p.
    let mut current: Option<(usize, usize, bool)> = None;
    let mut header = |line: &str| -> Option<(usize, usize, bool)> {
        let mut f = line.split_ascii_whitespace();
        let (range, perms, _offset, _dev, inode) = (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
        let path = f.next()?;
        let (a, b) = range.split_once('-')?;
        let (a, b) = (usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?);
        if inode == "0" || !path.starts_with('/') {
            return None;
        }
        match perms {
            "r-xp" => {
                out.push((a, b));
                None
            }
            "r--p" => Some((a, b, true)),
            _ => None,
        }
    };
    let mut pending = Vec::new();
    for line in smaps.lines() {
        let is_header = line.split_ascii_whitespace().next().is_some_and(|w| w.contains('-') && !w.ends_with(':'));
        if is_header {
            current = header(line);
        } else if let (Some((a, b, _)), Some(kb)) = (current, line.strip_prefix("Anonymous:")) {
            if kb.trim() == "0 kB" {
                pending.push((a, b));
            }
            current = None;
        }
    }
    out.extend(pending);
    out.sort_unstable();
    out
}

/// A `rest` decorator for the daemon: before the first idle rest after start or after items
/// were decided, release the code pages (see the module doc). `idle` says whether this rest
/// is an idle one; `handled` counts items decided.
pub fn release_when_idle(
    idle: impl Fn() -> bool + Send + 'static,
    handled: std::sync::Arc<std::sync::atomic::AtomicU64>,
) -> cn_compute::Decorator {
    use std::sync::atomic::Ordering;
    let mut released_at: Option<u64> = None;
    cn_compute::Decorator::Rest(Box::new(move |mut inner: cn_compute::RestFn| -> cn_compute::RestFn {
        Box::new(move || {
            // The local model, unused for its `release_after`, is freed (~180 MB); the heap
            // is trimmed after it.
            let models = cn_models::release_idle_models();
            if models > 0 {
                tracing::info!(models, "idle: the local model released");
                released_at = None;
            }
            let now = handled.load(Ordering::Relaxed);
            if released_at != Some(now) && idle() {
                let bytes = release_code_pages();
                tracing::debug!(bytes, "idle: code pages released from the resident set");
                released_at = Some(now);
            }
            inner();
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_file_backed_code_and_clean_read_only_data_are_chosen() {
        let smaps = "\
55d0c0000000-55d0c0100000 r--p 00000000 fd:01 1234 /usr/bin/cn
Size:               1024 kB
Anonymous:             0 kB
55d0c0100000-55d0c0900000 r-xp 00100000 fd:01 1234 /usr/bin/cn
Anonymous:             0 kB
55d0c0900000-55d0c0a00000 r--p 00900000 fd:01 1234 /usr/bin/cn
Anonymous:            12 kB
55d0c0a00000-55d0c0a10000 rw-p 00a00000 fd:01 1234 /usr/bin/cn
Anonymous:             0 kB
7f0000000000-7f0000021000 rw-p 00000000 00:00 0 [heap]
7f0000100000-7f0000200000 r-xp 00000000 00:00 0
7f0000200000-7f0000210000 r--p 00000000 00:00 0
Anonymous:             0 kB
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]
7f0000300000-7f0000400000 r-xp 00028000 fd:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6
7f0000400000-7f0000410000 r--p 00128000 fd:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6
Anonymous:             4 kB
";
        assert_eq!(
            clean_file_mappings(smaps),
            vec![(0x55d0c0000000, 0x55d0c0100000), (0x55d0c0100000, 0x55d0c0900000), (0x7f0000300000, 0x7f0000400000)]
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn released_code_leaves_the_resident_set_and_still_runs() {
        fn rss_file_kb() -> u64 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            let line = status.lines().find(|l| l.starts_with("RssFile:")).unwrap();
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        }
        // Touch plenty of code first (formatting, JSON, the test harness is running).
        let text = serde_json::to_string(&serde_json::json!({"a": [1, 2, 3], "b": "c"})).unwrap();
        let before = rss_file_kb();
        let released = release_code_pages();
        let after = rss_file_kb();
        assert!(released > 0, "no code mapping found");
        assert!(after < before, "file-backed RSS {before} KB -> {after} KB");
        // The code comes back when it runs again.
        let again = serde_json::to_string(&serde_json::json!({"a": [1, 2, 3], "b": "c"})).unwrap();
        assert_eq!(text, again);
    }
}
