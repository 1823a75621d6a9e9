//! The owner's view of the reflexes as data: one JSON object per reflex with its level,
//! trigger, status and analytics (`cn reflex list --json`, the control room).

use serde_json::{json, Value};

use crate::engine::Engine;

/// One row per loaded reflex: name, description, level, trigger, callable, status (`enabled`,
/// `off`, `disabled (failing)`), mode (`active`, `shadow`), who learned it (`executive`,
/// `proposal`, or null for the owner's), agreement (`agreed` of `compared` shadow runs, and
/// the distinct messages counting toward promotion), fired, succeeded, failed, escalated,
/// latencies, last fired, why it was disabled or why promotion was refused, the executive
/// tokens it saved, and its file relative to the hub.
///
/// Tokens saved: the items it answered (runs that did not escalate) × `call_tokens`, the
/// average tokens of an executive call on this hub (the budget ledger's all-time tokens over
/// its calls; `cn budget` reports the same figure per reflex); null before any executive call
/// was measured (nothing is claimed). Shadow runs save nothing.
pub fn listing(engine: &Engine, call_tokens: Option<u64>) -> Vec<Value> {
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
                "mode": r.mode,
                "learned": r.learned,
                "agreed": s.agreed,
                "compared": s.compared,
                "agreed_distinct": s.agreed_on.len(),
                "promotion_refused": s.promotion_refused,
                "tokens_saved": call_tokens.map(|t| s.fired.saturating_sub(s.escalated) * t),
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
