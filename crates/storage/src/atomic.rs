//! Atomic writes: a reader (or a crash) sees the old file or the new one, never half of one.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Write `bytes` to `path` via a temp file in the same directory, fsync, rename, fsync dir.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_rename(path, bytes, true)
}

/// Temp file and rename, without the fsyncs: a reader or a killed process still sees the old
/// file or the new one, never half of one, but a power loss may lose the write. Only for
/// files whose durable copy is elsewhere — an AI loop's artifacts, which git commits at the
/// end of each iteration and a resumed loop rewrites.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_rename(path, bytes, false)
}

/// Make files written with [`write_atomic_unsynced`] durable together: their data synced from
/// a few threads at once (the file system commits concurrent syncs as one), then each of
/// `dirs` once, so their renames are durable too. For a batch whose files must all be on disk
/// before something else is published (peer mail filed before its receipt).
pub fn sync_files(paths: &[std::path::PathBuf], dirs: &[&Path]) -> io::Result<()> {
    const THREADS: usize = 8;
    let per = paths.len().div_ceil(THREADS).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(per)
            .map(|chunk| scope.spawn(move || chunk.iter().try_for_each(|p| File::open(p)?.sync_data())))
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().unwrap_or_else(|_| Err(io::Error::other("a sync thread panicked"))))
    })?;
    for dir in dirs {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

fn write_via_rename(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    crate::beneath::check(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let tmp = dir.join(format!(".{}.tmp.{}.{}", name.to_string_lossy(), std::process::id(), unique()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync {
            f.sync_all()?;
        }
        fs::rename(&tmp, path)?;
        if sync {
            // Make the rename itself durable.
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Serialize as pretty JSON (with a final newline) and write atomically.
pub fn write_json_atomic<T: Serialize + ?Sized>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Read a JSON state file; a missing file is the default value. A malformed one is an
/// error naming the file, line and column, never silently replaced.
pub fn read_json_or_default<T: DeserializeOwned + Default>(path: &Path) -> io::Result<T> {
    match fs::read(path) {
        Ok(bytes) if bytes.iter().all(|b| b.is_ascii_whitespace()) => Ok(T::default()),
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: line {}, column {}: {e}", path.display(), e.line(), e.column()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_whole_and_leave_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state/tasks.json");
        write_json_atomic(&p, &vec![1, 2, 3]).unwrap();
        write_json_atomic(&p, &vec![4]).unwrap();
        let back: Vec<i32> = read_json_or_default(&p).unwrap();
        assert_eq!(back, vec![4]);
        let names: Vec<_> = fs::read_dir(p.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn missing_is_default_and_malformed_names_the_place() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.json");
        let v: Vec<i32> = read_json_or_default(&p).unwrap();
        assert!(v.is_empty());
        fs::write(&p, "[1,\n  oops]").unwrap();
        let e = read_json_or_default::<Vec<i32>>(&p).unwrap_err();
        assert!(e.to_string().contains("x.json: line 2"), "{e}");
    }
}
