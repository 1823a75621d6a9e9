//! `shell` — run a command with `sh -c` in the hub. Off unless the policy says `shell: true`;
//! run by `cn_process::child`: only `policy.env`'s variables (and a minimal `PATH`, `HOME`,
//! `LANG`), its whole process group killed at the policy's time limit or when `sh` exits,
//! its output cut (and the command stopped) at the size limit; sandboxed (`cn_process::sandbox`:
//! it writes only in the hub's folders that are not cn's — never `.git/`, `cn.yaml`,
//! `state/`, `threads/`, `loops/`, which cn changes itself — and its own temporary
//! directory; it reads neither `.git/` (the owner token) nor secret files; it signals nothing
//! outside its own process group; no network unless `policy.shell_network`) unless
//! `policy.sandbox: false`.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_process::child::{Child, ChildError};
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
            // One runner for every child: cleared environment, own process group (killed
            // whole at the limit or when `sh` exits), output read as it comes up to the cap.
            let limit = usize::try_from(super::max_bytes(ctx)).unwrap_or(usize::MAX);
            let mut child = Child::shell(&p.command)
                .cwd(&ctx.workdir)
                .pass_env(&ctx.policy.env)
                .timeout(super::timeout(ctx))
                .max_output(limit);
            if ctx.policy.sandboxed() {
                // Writes only in the hub's own folders that are not cn's (or in the loop's
                // tree but its `.git/`), reads no token, no network unless granted.
                let canonical = |p: &std::path::Path| p.canonicalize().ok();
                let in_hub = ctx.hub.as_deref().is_some_and(|h| canonical(h) == canonical(&ctx.workdir));
                let mut sandbox = if in_hub {
                    cn_tools::sandbox::for_hub(&ctx.workdir)
                } else {
                    cn_tools::sandbox::for_tree(&ctx.workdir)
                };
                sandbox.network = ctx.policy.shell_network;
                child = child.sandbox(sandbox);
            }
            let out = child.run().map_err(|e| match e {
                ChildError::Sandbox(e) => ToolError::Denied(cn_compute::chain(&e)),
                e => ToolError::Failed(cn_compute::chain(&e)),
            })?;
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            if out.truncated {
                text.push_str(&format!("\n[output cut at {limit} bytes; the command was stopped]"));
                return Ok(Value::String(text));
            }
            if !out.success() {
                let err = String::from_utf8_lossy(&out.stderr[..out.stderr.len().min(4096)]).into_owned();
                let status = out.status.map_or("a signal".to_string(), |s| s.to_string());
                return Err(ToolError::Failed(format!("`{}` exited with {status}: {}", p.command, err.trim())));
            }
            Ok(Value::String(text.trim_end().to_string()))
        },
    )
}
