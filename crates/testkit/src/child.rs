//! The test binary re-run as a child process, for a test that must kill, attack or
//! re-sandbox the process doing the work (a SIGKILL at a chosen point, a component that goes
//! after its parent, a sandbox probed once per process under `CN_TEST_SANDBOX_WITHOUT`).
//!
//! The child runs one `#[ignore]`d test of the same binary, which reads what to do from its
//! environment and reports with [`say`]: lines prefixed so libtest's own lines are told
//! apart, read back by [`said`].

use std::process::Command;

/// Marks a child's report among libtest's lines.
const PREFIX: &str = "cn-testkit: ";

/// This test binary, to run only its ignored test `name` (the full path in the binary,
/// `module::function`), alone, its output not captured.
pub fn test_command(name: &str) -> Command {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut c = Command::new(exe);
    c.args([name, "--exact", "--ignored", "--nocapture", "--test-threads=1", "-q"]);
    c
}

/// Report `value` to the parent (one line on stdout).
pub fn say(value: &serde_json::Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{PREFIX}{value}");
    let _ = out.flush();
}

/// Every report in a child's stdout, in order.
pub fn said(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| l.strip_prefix(PREFIX))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a child's report that is not JSON ({e}): {l}")))
        .collect()
}
