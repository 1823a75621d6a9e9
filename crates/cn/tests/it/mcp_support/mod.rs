//! The official Python MCP client (PyPI `mcp`), for the MCP tests: `scripts/deps.sh`
//! `--test` (which `./test.sh` runs) installs it in a venv ($CN_MCP_VENV, default
//! ~/.cache/cn/mcp-venv); a missing client fails the test.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv's python, which can import `mcp` (panics, naming the fix, when it cannot).
pub fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("CN_MCP_VENV")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cn/mcp-venv")))?;
    let py = venv.join("bin/python");
    let ok = Command::new(&py).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success());
    if ok {
        return Some(py);
    }
    panic!("the Python MCP client is not installed at {} (run scripts/deps.sh --test)", venv.display());
}

/// Run `client.py` against `command args…` with `calls` (a JSON list of [tool, args]);
/// its JSON answer.
pub fn client(py: &Path, command: &Path, args: &[&str], calls: &serde_json::Value) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp_support/client.py");
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
