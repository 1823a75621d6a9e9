//! What every end-to-end test of a hub needs: the real `cn` binary pointed at a hub (with
//! `CN_HUB` removed and logging quiet), and a fresh hub made by `cn init`. `agent_common` and
//! `daemon_common` re-export it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// `cn --hub HUB`, with `CN_HUB` removed and only errors logged.
pub fn cn_cmd(hub: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cn"));
    c.arg("--hub").arg(hub).env_remove("CN_HUB").env("CN_LOG", "error");
    c
}

/// Run cn and require success; its stdout.
pub fn cn_ok(hub: &Path, args: &[&str]) -> String {
    let out = cn_cmd(hub).args(args).output().expect("cn runs");
    assert!(
        out.status.success(),
        "cn {args:?} failed ({:?}): {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `cn init` a hub named `name` at `root/name`; its path.
pub fn init_hub(root: &Path, name: &str) -> PathBuf {
    let hub = root.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&hub).args(["--name", name]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    hub
}

/// Let items from `key` (`peer:a`, `peers`, `github` …) cause `tools` unasked: the owner's
/// line under `policy: from:` in a hub made by [`init_hub`].
pub fn allow_from(hub: &Path, key: &str, tools: &[&str]) {
    let path = hub.join("cn.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap();
    let line = format!("\n  from:\n    \"{key}\": [{}]\n  shell: false", tools.join(", "));
    assert!(yaml.contains("\n  shell: false"), "a cn.yaml from `cn init`: {yaml}");
    std::fs::write(&path, yaml.replacen("\n  shell: false", &line, 1)).unwrap();
}
