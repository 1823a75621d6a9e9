//! The owner's view of the reflexes as data: one JSON object per reflex with its level,
//! trigger, status and analytics (`cn reflex list --json`, the control room).

use serde_json::{json, Value};

use crate::engine::Engine;

/// One row per loaded reflex: name, description, level, trigger, callable, status (`enabled`,
/// `off`, `disabled (failing)`), fired, succeeded, failed, escalated, latencies, last fired,
/// why it was disabled, and its file relative to the hub.
pub fn listing(engine: &Engine) -> Vec<Value> {
    engine
        .reflexes()
        .iter()
        .map(|r| {
            let s = engine.stats().get(&r.name).cloned().unwrap_or_default();
            let status = match (&s.disabled, r.enabled) {
                (Some(_), _) => "disabled (failing)",
                (None, false) => "off",
                (None, true) => "enabled",
            };
            json!({
                "name": r.name,
                "description": r.description,
                "level": r.level,
                "trigger": r.trigger.kind,
                "callable": r.callable,
                "status": status,
                "fired": s.fired,
                "succeeded": s.succeeded,
                "failed": s.failed,
                "escalated": s.escalated,
                "latency_ms_p50": s.latency_ms_p50,
                "latency_ms_last": s.latency_ms_last,
                "last_fired": s.last_fired,
                "disabled": s.disabled.as_ref().map(|d| json!({"at": d.at, "reason": d.reason})),
                "file": r.file.strip_prefix(engine.hub()).unwrap_or(&r.file),
            })
        })
        .collect()
}
