//! The official Python MCP client (PyPI `mcp`), for the MCP tests: `scripts/deps.sh`
//! installs it in a venv ($CN_MCP_VENV, default ~/.cache/cn/mcp-venv). In CI (`$CI` set) a
//! missing client fails the test; elsewhere the test says why it is skipped.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv's python, if it can import `mcp`.
pub fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("CN_MCP_VENV")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cn/mcp-venv")))?;
    let py = venv.join("bin/python");
    let ok = Command::new(&py).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success());
    if ok {
        return Some(py);
    }
    let msg = format!("the Python MCP client is not installed at {} (run scripts/deps.sh)", venv.display());
    assert!(std::env::var_os("CI").is_none(), "{msg}");
    eprintln!("SKIPPED: {msg}");
    None
}

/// Run `client.py` against `command args…` with `calls` (a JSON list of [tool, args]);
/// its JSON answer.
pub fn client(py: &Path, command: &Path, args: &[&str], calls: &serde_json::Value) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_support/client.py");
    let out = Command::new(py)
        .arg(script)
        .arg(command)
        .args(args)
        .arg("--")
        .arg(calls.to_string())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the MCP client failed ({:?}): {}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}
