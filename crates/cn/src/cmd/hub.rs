//! What every hub command shares: finding the hub, and turning the agent layer's errors into
//! the binary's exit codes (2 bad input, 3 nothing to do, 1 anything else).

use std::path::Path;
use std::process::ExitCode;

use cn_agent::{AgentError, Hub};

use super::UsageError;

/// Open the hub named by `--hub`/`$CN_HUB`, or the nearest one upwards.
pub fn open(hub: Option<&Path>) -> anyhow::Result<Hub> {
    Hub::find(hub).map_err(report_err)
}

/// The hub's root directory (`--hub`, `$CN_HUB`, else the nearest `cn.yaml` upwards), once
/// its cn.yaml has passed the check `cn run` makes of it (every key of every section): a
/// command that only reads tasks refuses a `bugdet:` exactly as the daemon does.
pub fn root(hub: Option<&Path>) -> anyhow::Result<std::path::PathBuf> {
    Ok(open(hub)?.root().to_path_buf())
}

/// Open the hub for a command that only reads it (`cn chat` to a running daemon, `cn journal`,
/// `cn task list`, `cn config show`), even while cn.yaml has an error: the error is said on
/// stderr with what it means — a running daemon keeps its last good config, `cn run` will not
/// start — and the hub is read without the key in error. `daemon_needed`: the command cannot
/// work without a running daemon then (chat would run `cn run --once`, which refuses it).
pub fn open_to_read(hub: Option<&Path>, daemon_needed: bool) -> anyhow::Result<Hub> {
    let root = cn_agent::find_hub(hub).map_err(report_err)?;
    let (hub, error) = Hub::open_to_read(&root).map_err(report_err)?;
    let Some(error) = error else { return Ok(hub) };
    let running = cn_storage::ProcessLock::is_held(&hub.layout().run_lock());
    let why = cn_compute::chain(&error);
    if running {
        eprintln!(
            "cn: {why}\ncn: the daemon keeps running on its last good config until cn.yaml is fixed; \
             this shows the hub without the key in error (`cn config check` says what `cn run` would)"
        );
    } else if daemon_needed {
        return Err(UsageError(format!(
            "{why}\nno daemon is running, and `cn run` will not start until cn.yaml is fixed (`cn config check` says what it would say)"
        ))
        .into());
    } else {
        eprintln!(
            "cn: {why}\ncn: no daemon is running, and `cn run` will not start until cn.yaml is fixed; \
             this shows the hub without the key in error"
        );
    }
    Ok(hub)
}

/// An agent-layer error as the binary reports it.
pub fn report_err(e: impl Into<AgentError>) -> anyhow::Error {
    match e.into() {
        AgentError::Invalid(m) => UsageError(m).into(),
        AgentError::Remote(r) => UsageError(r.to_string()).into(),
        e => e.into(),
    }
}

/// `Empty` is not a failure: say so on stderr and exit 3.
pub fn finish<T>(r: Result<T, AgentError>, ok: impl FnOnce(T) -> anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match r {
        Ok(v) => ok(v),
        Err(AgentError::Empty(m)) => {
            eprintln!("cn: {m}");
            Ok(ExitCode::from(3))
        }
        Err(e) => Err(report_err(e)),
    }
}
