//! `cn chat` — the owner talks to the agent from a terminal. Each line is an owner message:
//! the highest salience, answered before any autonomous work.
//!
//! With a daemon running on the hub (`state/run.lock` held), a message goes to its owner
//! endpoint (the address in `state/run.json`, with the hub's owner token) and the daemon wakes
//! at once. With none, the
//! message is queued in the hub's inbox and `cn run --once` is run for it — the same agent,
//! one item at a time. Either way chat waits until the item is decided and prints what the
//! agent answered (the reply, or the decision it took).
//!
//! `cn chat TEXT` sends one message and exits; `cn chat` alone reads lines until EOF or
//! `/quit`, and prints each reminder the daemon tells on the owner's chat while it is open
//! (a `reminder` journal entry with `via: chat`, issue 31) as it is told.

use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use cn_agent::Hub;
use cn_autonomy::senses::Reply;

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The message; without it, chat reads one message a line from stdin until EOF or /quit.
    pub message: Vec<String>,
    /// How long to wait for an answer, in seconds.
    #[arg(long, default_value_t = 300, value_name = "SECS")]
    pub timeout: u64,
    /// Queue the message and return without waiting for the answer.
    #[arg(long)]
    pub no_wait: bool,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    // A typo in cn.yaml does not lock the owner out: chat goes to the running daemon, which
    // keeps its last good config.
    let hub = super::hub::open_to_read(hub, true).context("cn chat needs a hub")?;
    // An executive session while it runs: the daemon does no autonomous executive work.
    let _session = cn_models::Sessions::in_state(&hub.layout().state()).begin("chat").ok();
    let timeout = Duration::from_secs(args.timeout);
    if !args.message.is_empty() {
        let text = args.message.join(" ");
        return match converse(&hub, &text, timeout, args.no_wait)? {
            Some(answer) => {
                println!("{}", super::shown(&answer));
                Ok(ExitCode::SUCCESS)
            }
            None => Ok(ExitCode::SUCCESS),
        };
    }
    let stdin = std::io::stdin();
    let interactive = std::io::IsTerminal::is_terminal(&stdin);
    reminders(&hub);
    if interactive {
        println!("Talking to {} (a line a message; /quit or Ctrl-D to leave).", hub.name());
    }
    loop {
        if interactive {
            print!("you> ");
            crate::out::flush();
        }
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            break;
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if text == "/quit" {
            break;
        }
        match converse(&hub, text, timeout, args.no_wait) {
            Ok(Some(answer)) => println!("{}> {}", hub.name(), super::shown(&answer)),
            Ok(None) => {}
            // One failed message does not end the conversation.
            Err(e) => eprintln!("cn chat: {}", super::shown_line(&format!("{e:#}"))),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Send one owner message and wait for the agent's answer (`None` with `no_wait`).
fn converse(hub: &Hub, text: &str, timeout: Duration, no_wait: bool) -> anyhow::Result<Option<String>> {
    let daemon = cn_daemon::owner_url(hub.root());
    let id = match &daemon {
        Some(url) => post(hub, url, text)?,
        None => cn_agent::enqueue_new(hub, cn_agent::OWNER, cn_agent::Cadence::Inbox, text)?.id,
    };
    if no_wait {
        eprintln!("cn chat: queued {id}");
        return Ok(None);
    }
    let deadline = Instant::now() + timeout;
    let mut status = Status::new();
    let mut wait = Duration::from_millis(1);
    let mut looked = Instant::now();
    loop {
        if let Some(answer) = cn_agent::answer_to(hub, &id)? {
            status.clear();
            return Ok(Some(answer));
        }
        if Instant::now() >= deadline {
            status.clear();
            bail!("no answer within {}s; the message stays queued as {id}", timeout.as_secs());
        }
        if daemon.is_some() {
            // Say what the agent finishes first, rather than wait in silence (looked up every
            // 100 ms: a reflex's answer comes before the first look).
            if looked.elapsed() >= Duration::from_millis(100) {
                status.show(hub, &id);
                looked = Instant::now();
            }
            // The daemon works on it; look again shortly (a person is waiting, a file stat
            // is cheap): at 1 ms first — a reflex answers within milliseconds — then every 10 ms.
            std::thread::sleep(wait);
            wait = (wait * 2).min(Duration::from_millis(10));
        } else {
            run_once(hub.root())?;
        }
    }
}

/// What `cn chat` says while the daemon finishes other work before the owner's message:
/// "finishing task “…” on the executive, 6 s…" — on a terminal one line kept up to date,
/// elsewhere one line per item it waits for.
struct Status {
    terminal: bool,
    shown: Option<String>,
    last: String,
}

impl Status {
    fn new() -> Status {
        Status { terminal: std::io::IsTerminal::is_terminal(&std::io::stderr()), shown: None, last: String::new() }
    }

    fn show(&mut self, hub: &Hub, mine: &str) {
        let Some(w) = cn_daemon::working::now(hub) else { return self.clear() };
        let (doing, item) = match w.item.as_deref() {
            Some(item) if item == mine => ("working on your message", item.to_string()),
            item => ("finishing", item.unwrap_or("").to_string()),
        };
        let text = match doing {
            "finishing" => format!("finishing {}…", cn_daemon::working::describe(hub, &w)),
            _ => {
                let level = if w.level >= 3 { "the executive" } else { "the local model" };
                format!("{doing} on {level}…")
            }
        };
        if self.terminal {
            if text != self.last {
                eprint!("\r\x1b[Kcn chat: {text}");
                self.last = text;
            }
        } else if self.shown.as_deref() != Some(item.as_str()) && doing == "finishing" {
            eprintln!("cn chat: {text}");
        }
        self.shown = Some(item);
    }

    fn clear(&mut self) {
        if self.terminal && !self.last.is_empty() {
            eprint!("\r\x1b[K");
            self.last.clear();
        }
        self.shown = None;
    }
}

/// Post to the daemon's owner endpoint with the hub's owner token (the variable
/// `senses.owner.token_env` names, else the token file the daemon made), with an
/// `Idempotency-Key` of its own: a message whose answer was lost, or that the daemon took but
/// could not yet confirm in the hub's origin (503, a leased hub), is sent again under the
/// same key — the same item, decided once — a few times before chat gives up.
fn post(hub: &Hub, url: &str, text: &str) -> anyhow::Result<String> {
    let token = cn_hub::owner_token::read(hub.layout(), &hub.config().senses.owner)?
        .ok_or_else(|| UsageError(format!("no owner token at {}", hub.layout().owner_token().display())))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let bearer = format!("Bearer {token}");
    let key = format!("chat-{}{}", cn_hub::id::new(), cn_hub::id::new());
    let body = serde_json::to_string(&cn_autonomy::senses::owner::Message::new(text))?;
    // A daemon taking a changed cn.yaml starts its senses again: its endpoint is down for a
    // moment, so a refused connection is tried again for a few seconds.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut tries = 0;
    loop {
        tries += 1;
        let req = agent
            .post(url)
            .header("content-type", "application/json")
            .header("authorization", &bearer)
            .header("idempotency-key", &key);
        let again = match req.send(&body) {
            Err(ureq::Error::Io(e))
                if e.kind() == std::io::ErrorKind::ConnectionRefused && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(100));
                tries -= 1;
                continue;
            }
            // Sent, perhaps taken, the answer lost: the same key again.
            Err(e)
                if tries < RESENDS
                    && !matches!(e, ureq::Error::Io(ref io) if io.kind() == std::io::ErrorKind::ConnectionRefused) =>
            {
                format!("{e}")
            }
            sent => {
                let mut resp = sent.with_context(|| format!("cannot reach the daemon at {url}"))?;
                let status = resp.status().as_u16();
                let reply = Reply::read(&resp.body_mut().read_to_string().unwrap_or_default());
                let why = match &reply {
                    Some(Reply::Refused { error }) => error.clone(),
                    _ => "no reason given".to_string(),
                };
                match reply {
                    Some(Reply::Accepted { accepted }) if status == 202 => return Ok(accepted),
                    _ if status == 503 && tries < RESENDS => why,
                    _ => {
                        let after = if tries > 1 {
                            format!(" (sent {tries} times under one Idempotency-Key)")
                        } else {
                            String::new()
                        };
                        return Err(
                            UsageError(format!("the daemon refused the message ({status}){after}: {why}")).into()
                        );
                    }
                }
            }
        };
        tracing::info!(tries, why = %again, "the owner endpoint did not confirm the message; sending it again under its key");
        std::thread::sleep(Duration::from_secs(tries));
    }
}

/// Sends of one message under one `Idempotency-Key` before chat gives up on it.
const RESENDS: u64 = 4;

/// Handle one item with this binary's `cn run --once` (the most salient: the owner's first).
fn run_once(hub: &Path) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the cn binary")?;
    let out = std::process::Command::new(exe)
        .arg("--hub")
        .arg(hub)
        .args(["run", "--once"])
        .stdout(std::process::Stdio::null())
        .output()
        .context("cannot run cn run --once")?;
    match out.status.code() {
        Some(0) => Ok(()),
        Some(3) => bail!("cn run --once found nothing to do; is the message still queued?"),
        _ => bail!("cn run --once failed: {}", String::from_utf8_lossy(&out.stderr).trim()),
    }
}

/// Print each reminder told on the owner's chat from now on, as it is told: a thread that
/// follows the journal's new lines (from its end now; a rotated journal is followed anew).
fn reminders(hub: &Hub) {
    let path = hub.layout().journal();
    let name = hub.name().to_string();
    let mut offset = std::fs::metadata(&path).map_or(0, |m| m.len());
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(200));
        let Ok(len) = std::fs::metadata(&path).map(|m| m.len()) else { continue };
        if len < offset {
            offset = 0;
        }
        if len == offset {
            continue;
        }
        let Ok(bytes) = read_from(&path, offset) else { continue };
        // Only whole lines: a line being written is read the next time.
        let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else { continue };
        offset += end as u64 + 1;
        for line in bytes[..end].split(|b| *b == b'\n') {
            let Ok(e) = serde_json::from_slice::<serde_json::Value>(line) else { continue };
            if e["type"] == "reminder" && e["via"] == "chat" && e["outcome"] == "told" {
                if let Some(text) = e["summary"].as_str() {
                    println!("{name}> {}", super::shown(text));
                }
            }
        }
    });
}

fn read_from(path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    f.seek(std::io::SeekFrom::Start(offset))?;
    let mut out = Vec::new();
    f.take(1 << 20).read_to_end(&mut out)?;
    Ok(out)
}
