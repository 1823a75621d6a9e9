//! `shell` — run a command with `sh -c` in the hub. Off unless the policy says `shell: true`;
//! sandboxed (`cn_hub::sandbox`: writes only in the hub, no network unless
//! `policy.shell_network`) unless `policy.sandbox: false`; killed at the policy's time
//! limit; its output capped at the size limit.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The command line, run by `sh -c` in the hub.
    command: String,
}

pub(crate) fn tool() -> Arc<dyn Tool> {
    typed(
        "shell",
        "Run a shell command in the hub (only if policy.shell is true); returns its output.",
        |ctx, p: Params| {
            if !ctx.policy.shell {
                return Err(ToolError::Denied("the shell action is off (set `policy.shell: true` in cn.yaml)".into()));
            }
            let mut cmd = Command::new("sh");
            if ctx.policy.sandboxed() {
                // Writes only in the hub (or the loop's tree), no network unless granted.
                let sandbox =
                    cn_hub::sandbox::Sandbox { writable: vec![ctx.workdir.clone()], network: ctx.policy.shell_network };
                sandbox.apply(&mut cmd).map_err(|e| ToolError::Denied(e.to_string()))?;
            }
            let mut child = cmd
                .arg("-c")
                .arg(&p.command)
                .current_dir(&ctx.workdir)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| ToolError::Failed(format!("sh: {e}")))?;
            let limit = super::max_bytes(ctx);
            // Both pipes are drained while the command runs, so a chatty command cannot block
            // on a full pipe; what is over the limit is read and dropped.
            let reader = drain(child.stdout.take(), limit);
            let errors = drain(child.stderr.take(), 4096);
            let deadline = Instant::now() + super::timeout(ctx);
            let status = loop {
                match child.try_wait() {
                    Ok(Some(status)) => break status,
                    Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                    Ok(None) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(ToolError::Failed(format!(
                            "`{}` ran past the policy's time limit and was killed",
                            p.command
                        )));
                    }
                    Err(e) => return Err(ToolError::Failed(format!("sh: {e}"))),
                }
            };
            let out = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
            if !status.success() {
                let err = String::from_utf8_lossy(&errors.join().unwrap_or_default()).into_owned();
                return Err(ToolError::Failed(format!("`{}` exited with {status}: {}", p.command, err.trim())));
            }
            Ok(Value::String(out.trim_end().to_string()))
        },
    )
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>, limit: u64) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = (&mut pipe).take(limit).read_to_end(&mut buf);
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        }
        buf
    })
}
