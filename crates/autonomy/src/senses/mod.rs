//! Senses — real clients that turn events outside the agent into percepts and admit them to
//! attention: the owner's HTTP endpoint, GitHub (webhooks and notification polling), Discord
//! (the gateway; [`Senses::discord`] is the daemon's way to answer there, with the typing
//! indicator), a file watcher, calendars. Each is enabled in cn.yaml (`senses:`); base URLs
//! are configurable so tests run them against servers on loopback.
//!
//! The senses run on a small tokio runtime of their own (one worker thread), so the daemon's
//! kernel stays synchronous; [`Attention`] is the channel between them — bounded, and a
//! percept admitted wakes a resting daemon at once.
//!
//! Invariant: the HTTP server binds 127.0.0.1 unless cn.yaml says otherwise; secrets come
//! from environment variables and never reach a percept, the journal or a log.

pub mod calendar;
pub mod discord;
pub mod files;
pub mod github;
pub mod hub;
pub mod owner;
pub mod peers;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::routing::post;
use axum::Router;

use crate::attention::Attention;
use crate::config::{env_secret, ConfigError, SensesConfig};

/// Where the owner endpoint listens.
pub const OWNER_PATH: &str = "/owner/message";
/// Where GitHub delivers webhooks.
pub const GITHUB_PATH: &str = "/github/webhook";

/// A sense that could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum SenseError {
    #[error("cannot start the {sense} sense: {message}")]
    Start { sense: &'static str, message: String },
    #[error("cannot listen on {addr} (senses.bind in cn.yaml): {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("{url}: {message}")]
    Poll { url: String, message: String },
    #[error("calendar: {message}")]
    Parse { message: String },
    #[error("discord: {message}")]
    Discord { message: String },
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// The first non-empty line of `text`, trimmed, cut to `max` characters (for summaries).
pub(crate) fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// The HTTP routes for the enabled endpoints.
pub fn router(owner: Option<owner::OwnerEndpoint>, github: Option<github::Webhook>) -> Router {
    let mut app = Router::new();
    if let Some(ep) = owner {
        app = app.merge(Router::new().route(OWNER_PATH, post(owner::receive)).with_state(Arc::new(ep)));
    }
    if let Some(hook) = github {
        app = app.merge(Router::new().route(GITHUB_PATH, post(github::receive)).with_state(Arc::new(hook)));
    }
    app
}

/// Install ring as rustls' process-wide crypto provider (the binary's one TLS backend;
/// reqwest and twilight build their TLS configs from it). Installing twice is harmless.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The running senses. Dropping it stops them.
pub struct Senses {
    runtime: Option<tokio::runtime::Runtime>,
    addr: Option<SocketAddr>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    discord: Option<discord::DiscordHandle>,
    _files: Option<files::FileSense>,
}

impl Senses {
    /// Start every sense `config` enables, admitting percepts to `attention`.
    pub fn start(hub: &Path, config: &SensesConfig, attention: Attention) -> Result<Senses, SenseError> {
        install_tls_provider();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("cn-senses")
            .enable_all()
            .build()
            .map_err(|e| SenseError::Start { sense: "senses", message: e.to_string() })?;

        let owner_ep = if config.owner.enabled {
            let token = config.owner.token_env.as_deref().map(|var| env_secret("senses.owner.token_env", var)).transpose()?;
            Some(owner::OwnerEndpoint { token, attention: attention.clone() })
        } else {
            None
        };
        let hook = match config.github.as_ref().and_then(|g| g.secret_env.as_deref().map(|v| (g, v))) {
            Some((g, var)) => Some(github::Webhook {
                secret: env_secret("senses.github.secret_env", var)?.into_bytes(),
                owners: g.owners.clone(),
                attention: attention.clone(),
            }),
            None => None,
        };

        let mut addr = None;
        let mut shutdown = None;
        if owner_ep.is_some() || hook.is_some() {
            let app = router(owner_ep, hook);
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind(config.bind))
                .map_err(|source| SenseError::Bind { addr: config.bind, source })?;
            addr = listener.local_addr().ok();
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            shutdown = Some(tx);
            runtime.spawn(async move {
                let served = axum::serve(listener, app).with_graceful_shutdown(async {
                    let _ = rx.await;
                });
                if let Err(e) = served.await {
                    tracing::error!(%e, "the senses' HTTP server stopped");
                }
            });
            tracing::info!(?addr, "senses listening");
        }

        if let Some(poll) = config.github.as_ref().and_then(|g| g.poll.as_ref()) {
            let token = env_secret("senses.github.poll.token_env", &poll.token_env)?;
            let poller = github::NotificationPoller::new(&poll.base_url, token)?;
            runtime.spawn(github::run_poller(poller, poll.every, attention.clone()));
        }

        for cal in &config.calendar {
            let source = calendar::CalendarSource::parse(&cal.source, hub);
            runtime.spawn(calendar::run(source, cal.lead, cal.refresh, attention.clone()));
        }

        let discord = match &config.discord {
            Some(d) => {
                let token = env_secret("senses.discord.token_env", &d.token_env)?;
                Some(discord::start(d, token, attention.clone(), &runtime)?)
            }
            None => None,
        };

        if let Some(p) = &config.peers {
            runtime.spawn(peers::run(hub.to_path_buf(), p.every));
        }

        let files = match &config.files {
            Some(f) if !f.paths.is_empty() => Some(files::watch(hub, &f.paths, f.debounce, f.ignore.clone(), attention)?),
            _ => None,
        };

        Ok(Senses { runtime: Some(runtime), addr, shutdown, discord, _files: files })
    }

    /// The HTTP server's address (useful with port 0).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.addr
    }

    /// The way to answer on Discord and show the typing indicator, when `senses.discord` is
    /// on.
    pub fn discord(&self) -> Option<discord::DiscordHandle> {
        self.discord.clone()
    }

    /// Stop every sense: the server finishes the requests in flight.
    pub fn stop(mut self) {
        self.shutdown_now();
    }

    fn shutdown_now(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(std::time::Duration::from_secs(5));
        }
    }
}

impl Drop for Senses {
    fn drop(&mut self) {
        self.shutdown_now();
    }
}
