//! What the daemon runs beside deciding: the journal's rotation (`journal:`), the control
//! room's server (`serve:`) and the export of its traces (`otel:`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

/// The journal's rotation (`journal:`): `state/journal.jsonl` becomes the next segment
/// `state/journal/NNNNNN.jsonl` when a decision is journaled and it is due (or when the
/// daemon starts). Readers stream every segment, then the live file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JournalConfig {
    /// Rotate once the live file holds this many bytes; 0 never rotates by size. Default
    /// 4 MiB (about 1,500 items a daemon decided): every commit of the hub stores a new blob
    /// of the live file, so its size bounds what each decision adds to `.git`.
    pub rotate_bytes: u64,
    /// Also rotate on the first decision of a new UTC day. Default off.
    pub rotate_daily: bool,
}

impl Default for JournalConfig {
    fn default() -> Self {
        JournalConfig { rotate_bytes: 4 << 20, rotate_daily: false }
    }
}

impl JournalConfig {
    pub fn rotation(&self) -> cn_storage::Rotation {
        cn_storage::Rotation { bytes: self.rotate_bytes, daily: self.rotate_daily }
    }
}

/// `serve:` — the control room's web server (`cn serve`, and the daemon when present).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeConfig {
    /// The address to listen on; port 0 picks a free port.
    pub bind: String,
    /// Listen on an address other than loopback. The page is plain HTTP, so the owner token
    /// would cross the network in clear: off unless the owner says so.
    pub allow_remote: bool,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig { bind: "127.0.0.1:0".into(), allow_remote: false }
    }
}

/// `otel:` — OpenTelemetry export of the daemon's traces (a span per item, per model call,
/// per tool call, with the GenAI semantic conventions) over OTLP/HTTP in protobuf:
///
/// ```yaml
/// otel:
///   endpoint: http://127.0.0.1:4318/v1/traces
///   headers_env: {authorization: OTEL_AUTH}   # header → the variable holding its value
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtelConfig {
    /// The collector's OTLP/HTTP traces URL (loopback or not: the owner's choice).
    pub endpoint: String,
    /// Headers sent with every export (an auth token, say), each value read from the named
    /// environment variable so that no secret sits in cn.yaml; never shown in errors.
    #[serde(default)]
    pub headers_env: BTreeMap<String, String>,
    /// The resource's `service.name`.
    #[serde(default = "otel_service")]
    pub service_name: String,
    /// Most finished spans waiting for export; beyond it new spans are dropped and counted.
    #[serde(default = "otel_queue")]
    pub queue: usize,
    /// How often a batch is sent (at most 512 spans each).
    #[serde(default = "otel_interval", with = "duration")]
    pub interval: Duration,
    /// The longest an export request may take.
    #[serde(default = "otel_timeout", with = "duration")]
    pub timeout: Duration,
}

fn otel_service() -> String {
    "cn".into()
}

fn otel_queue() -> usize {
    2048
}

fn otel_interval() -> Duration {
    Duration::from_secs(2)
}

fn otel_timeout() -> Duration {
    Duration::from_secs(5)
}
