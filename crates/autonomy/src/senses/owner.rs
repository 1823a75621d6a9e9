//! The owner's HTTP endpoint: `POST /owner/message` with a [`Message`], JSON `{"text": "...",
//! "thread": "..."}`, answered with a [`Reply`]: `{"accepted": id}` or `{"error": why}`
//! (`cn chat` and the control room send the one and read the other). The owner's messages have
//! the highest salience, so the endpoint makes sure they are the owner's.
//!
//! Invariants: every request carries `Authorization: Bearer <token>` (the hub's owner token,
//! see [`cn_hub::owner_token`]; compared in constant time with `subtle`) or is refused with
//! 401 and produces nothing. Only `Content-Type: application/json` is taken (415 otherwise),
//! so no web page can send a "simple" cross-site request; a request whose `Origin` is not the
//! endpoint's own, or whose `Host` is not a loopback name or an IP address (DNS rebinding),
//! is refused with 403; more than [`BURST`] authenticated requests at once, refilled at
//! [`PER_SECOND`], get 429 (counted only once the token is checked, so requests without it
//! cannot use up the owner's). The body is read only after all of that, at most
//! [`BODY_MAX`] bytes within `senses::BODY_TIMEOUT` (413, 408 otherwise): a request without
//! the token costs its header and nothing more. 202 means the message is in attention's
//! spool (it survives a kill); when the spool cannot be written (a full disk) the answer is
//! 507 and nothing was taken.
//!
//! A message may carry an `Idempotency-Key` header (1 to [`IDEMPOTENCY_KEY_MAX`] visible
//! ASCII characters, 400 otherwise): the message then gets an id derived from it with the
//! hub's id key and the message's text ([`Attention::delivery_id`], [`key_seed`]), so the
//! same message sent again under its key — after a 503, a lost answer, to the clone that took
//! the hub over — is the same item, decided once, and answered 202 with the same id; a key
//! used again for another text is another message with its own id (never the first one's
//! 202 for a message dropped). `cn chat` sends one with every message.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use subtle::ConstantTimeEq;

use super::{Reply, Running, Sense, SenseContext, SenseError, OWNER_PATH};
use crate::attention::Attention;
use crate::config::OwnerConfig;
use crate::percept::Percept;

/// Requests the endpoint takes at once before it answers 429.
pub const BURST: f64 = 20.0;
/// Requests a second it takes after a burst.
pub const PER_SECOND: f64 = 5.0;

/// The longest `Idempotency-Key` taken.
pub const IDEMPOTENCY_KEY_MAX: usize = 200;

/// The largest message body the endpoint reads.
pub const BODY_MAX: usize = 1 << 20;

/// The owner endpoint as a [`Sense`]: mounts `POST /owner/message` on the senses' server.
pub struct OwnerSense {
    token: String,
}

impl OwnerSense {
    /// `None` when `senses.owner.enabled` is false; the token read from the variable
    /// `senses.owner.token_env` names, else from the hub's token file (made if missing).
    pub fn configured(hub: &cn_hub::Hub, config: &OwnerConfig) -> Result<Option<Self>, SenseError> {
        if !config.enabled {
            return Ok(None);
        }
        let token = cn_hub::owner_token::load_or_create(hub.layout(), config).map_err(SenseError::OwnerToken)?;
        Ok(Some(OwnerSense { token }))
    }
}

impl Sense for OwnerSense {
    fn name(&self) -> &str {
        "owner"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        let ep = OwnerEndpoint::new(self.token, ctx.attention.clone());
        ctx.mount(axum::Router::new().route(OWNER_PATH, axum::routing::post(receive)).with_state(Arc::new(ep)));
        Ok(Running::tasks())
    }
}

/// What the owner route needs.
pub struct OwnerEndpoint {
    token: String,
    attention: Attention,
    /// Tokens left and when they were last counted.
    bucket: Mutex<(f64, Instant)>,
}

impl OwnerEndpoint {
    pub fn new(token: String, attention: Attention) -> Self {
        OwnerEndpoint { token, attention, bucket: Mutex::new((BURST, Instant::now())) }
    }

    /// Take one request from the bucket; false when it is empty.
    fn admit(&self) -> bool {
        let Ok(mut b) = self.bucket.lock() else { return false };
        let now = Instant::now();
        let (left, at) = *b;
        let left = (left + now.duration_since(at).as_secs_f64() * PER_SECOND).min(BURST);
        if left < 1.0 {
            *b = (left, now);
            return false;
        }
        *b = (left - 1.0, now);
        true
    }
}

/// The body of `POST /owner/message`: the owner's words, and the thread they continue when they
/// name one. Read as it was before it was typed: other fields are ignored (a field given twice:
/// its last value), a missing or null `text` is an empty message (refused), a `thread` that is
/// not a string is none; a `text` that is not a string is refused, naming it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Message {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
}

impl Message {
    pub fn new(text: impl Into<String>) -> Message {
        Message { text: text.into(), thread: None }
    }

    /// A request's body, or why it is none: not JSON, or which field is wrong.
    pub fn parse(body: &[u8]) -> Result<Message, String> {
        let why = |at: &str, e: serde_json::Error| match (e.classify(), at) {
            (serde_json::error::Category::Data, ".") => format!("body is not an owner message: {e}"),
            (serde_json::error::Category::Data, at) => format!("body is not an owner message: `{at}`: {e}"),
            _ => format!("body is not JSON: {e}"),
        };
        let mut de = serde_json::Deserializer::from_slice(body);
        let m = serde_path_to_error::deserialize(&mut de).map_err(|e| why(&e.path().to_string(), e.into_inner()))?;
        de.end().map_err(|e| why(".", e))?;
        Ok(m)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Message, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Message;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object with a string `text`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
                let mut m = Message::default();
                while let Some(field) = map.next_key::<String>()? {
                    match field.as_str() {
                        "text" => m.text = map.next_value::<Option<String>>()?.unwrap_or_default(),
                        "thread" => m.thread = map.next_value::<StringOrNot>()?.into(),
                        _ => drop(map.next_value::<IgnoredAny>()?),
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(Fields)
    }
}

/// A value kept when it is a string (a `thread` of another type reads as none).
#[derive(Deserialize)]
#[serde(untagged)]
enum StringOrNot {
    String(String),
    Not(IgnoredAny),
}

impl From<StringOrNot> for Option<String> {
    fn from(v: StringOrNot) -> Option<String> {
        match v {
            StringOrNot::String(s) => Some(s),
            StringOrNot::Not(_) => None,
        }
    }
}

/// The percept for one owner message.
pub fn percept(text: &str, thread: Option<&str>) -> Percept {
    let first = text.lines().next().unwrap_or("").trim();
    let mut origin = cn_hub::Origin::owner(cn_hub::Sense::Chat);
    origin.thread = thread.map(str::to_string);
    let mut p = Percept::new(cn_hub::Sense::Chat, format!("Owner: {first}")).with_origin(origin).text(text);
    if let Some(t) = thread {
        p = p.key(format!("owner:{t}"));
    }
    p
}

fn refuse(status: StatusCode, why: &str) -> (StatusCode, Json<Reply>) {
    (status, Json(Reply::Refused { error: why.to_string() }))
}

/// A `Host` a browser reaches only on this machine: `localhost` or an IP address (a DNS
/// rebinding attack names the attacker's domain).
pub fn local_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, port)| if port.parse::<u16>().is_ok() { h } else { host }),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok()
}

/// `POST /owner/message`.
pub async fn receive(
    State(ep): State<Arc<OwnerEndpoint>>,
    headers: HeaderMap,
    body: Body,
) -> (StatusCode, Json<Reply>) {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let host = header("host").unwrap_or("");
    if !local_host(host) {
        return refuse(StatusCode::FORBIDDEN, "the Host header must be an IP address or localhost");
    }
    if let Some(origin) = header("origin") {
        if origin != format!("http://{host}") {
            return refuse(StatusCode::FORBIDDEN, "cross-origin requests are refused");
        }
    }
    let given = header("authorization").and_then(|v| v.strip_prefix("Bearer ")).unwrap_or("");
    if !bool::from(given.as_bytes().ct_eq(ep.token.as_bytes())) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (the hub's owner token: `cn chat` sends it)",
        );
    }
    // Counted only now: requests without the token cannot use up the owner's.
    if !ep.admit() {
        return refuse(StatusCode::TOO_MANY_REQUESTS, "too many requests; try again in a second");
    }
    let json_body = header("content-type")
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|ct| ct.trim().eq_ignore_ascii_case("application/json"));
    if !json_body {
        return refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send JSON with Content-Type: application/json");
    }
    let body = match super::read_body(&headers, body, BODY_MAX).await {
        Ok(b) => b,
        Err(e) => return e.answer(),
    };
    let Message { text, thread } = match Message::parse(&body) {
        Ok(m) => m,
        Err(why) => return refuse(StatusCode::BAD_REQUEST, &why),
    };
    if text.trim().is_empty() {
        return refuse(StatusCode::BAD_REQUEST, EMPTY);
    }
    let mut p = percept(&text, thread.as_deref());
    match keyed_id(&ep.attention, &headers, &text) {
        Ok(Some(id)) => p.id = id,
        Ok(None) => {}
        Err(why) => return refuse(StatusCode::BAD_REQUEST, &why),
    }
    let id = p.id.clone();
    match ep.attention.admit_durable(p) {
        // Leased, the 202 waits until origin holds it: a machine that dies after answering
        // loses nothing the owner was told was taken.
        Ok(_) => match super::replicated(&ep.attention).await {
            Ok(()) => (StatusCode::ACCEPTED, Json(Reply::Accepted { accepted: id })),
            Err(why) => super::not_in_origin("owner", &why),
        },
        Err(e) => super::not_recorded("owner", &e),
    }
}

/// Why a message without words is refused.
pub const EMPTY: &str = "empty message: send {\"text\": \"...\"}";

/// The id of an owner's message `text` sent with an `Idempotency-Key` (the owner endpoint's,
/// the control room's chat): `Ok(None)` without one, `Err` naming what is wrong with a key
/// that is not one.
pub fn keyed_id(attention: &Attention, headers: &HeaderMap, text: &str) -> Result<Option<String>, String> {
    let Some(value) = headers.get("idempotency-key") else { return Ok(None) };
    let key = idempotency_key(value.as_bytes())
        .ok_or_else(|| format!("Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters"))?;
    let seed = key_seed(key, text);
    // Without the hub's id key (unreadable), still one id per key: only the token's holder
    // sends keys, and `cn chat`'s are random.
    Ok(Some(attention.delivery_id(&seed).unwrap_or_else(|| format!("p-{}", cn_hub::id::stable(&seed)))))
}

/// What an `Idempotency-Key` and the message's text are keyed as (`cn_hub::id::delivery`):
/// the daemon's id for the message and the control room's, when it queues the message
/// itself, are one. The text is in it so that a key a client uses again for another message
/// does not make that message the first one's duplicate, answered 202 and never decided.
pub fn key_seed(key: &str, text: &str) -> String {
    format!("owner:{key}\0{}", cn_hub::id::sha256_hex(text.as_bytes()))
}

/// An `Idempotency-Key` header's value, if it is one: 1 to [`IDEMPOTENCY_KEY_MAX`] visible
/// ASCII characters (so it can be passed on in a header as it is).
pub fn idempotency_key(value: &[u8]) -> Option<&str> {
    let ok = (1..=IDEMPOTENCY_KEY_MAX).contains(&value.len()) && value.iter().all(u8::is_ascii_graphic);
    ok.then(|| std::str::from_utf8(value).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idempotency_key_is_short_visible_ascii() {
        assert_eq!(idempotency_key(b"chat-3f9a"), Some("chat-3f9a"));
        for bad in [&b""[..], b"with space", b"\xff\xfe", &[b'a'; IDEMPOTENCY_KEY_MAX + 1]] {
            assert_eq!(idempotency_key(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_message_reads_as_it_did_untyped_and_a_wrong_text_is_named() {
        let read = |body: &str| Message::parse(body.as_bytes());
        let hi = Message { text: "hi".into(), thread: Some("t1".into()) };
        assert_eq!(read(r#"{"text": "hi", "thread": "t1"}"#), Ok(hi.clone()));
        // Taken before it was typed, taken still: other fields, a field given twice (its last
        // value), a thread that is not a string, a missing or null text (then refused as empty).
        assert_eq!(read(r#"{"text": "hi", "thread": "t1", "extra": {"a": [1]}, "n": 5}"#), Ok(hi.clone()));
        assert_eq!(read(r#"{"text": "no", "thread": "t1", "text": "hi"}"#), Ok(hi));
        assert_eq!(read(r#"{"text": "hi", "thread": 7}"#), Ok(Message::new("hi")));
        assert_eq!(read(r#"{"thread": {"x": 1}}"#), Ok(Message::default()));
        assert_eq!(read(r#"{"text": null}"#), Ok(Message::default()));
        let wrong = read(r#"{"text": 5}"#).unwrap_err();
        assert!(wrong.starts_with("body is not an owner message: `text`: invalid type: integer"), "{wrong}");
        let list = read("[1]").unwrap_err();
        assert!(list.starts_with("body is not an owner message: invalid type: sequence"), "{list}");
        for not_json in ["", "nope", r#"{"text": "hi"} and more"#, r#"{"text": "hi""#] {
            let e = read(not_json).unwrap_err();
            assert!(e.starts_with("body is not JSON: "), "{not_json}: {e}");
        }
        assert!(Message::parse(b"\xff\xfe").unwrap_err().starts_with("body is not JSON: "));
        let sent = serde_json::to_string(&Message::new("hi")).unwrap();
        assert_eq!(sent, r#"{"text":"hi"}"#);
    }

    #[test]
    fn a_reply_is_accepted_or_refused_whatever_else_it_says() {
        let accepted = Reply::Accepted { accepted: "p-1".into() };
        assert_eq!(serde_json::to_string(&accepted).unwrap(), r#"{"accepted":"p-1"}"#);
        assert_eq!(Reply::read(r#" {"accepted": "p-1", "by": "daemon"} "#), Some(accepted));
        assert_eq!(Reply::read(r#"{"error": "no"}"#), Some(Reply::Refused { error: "no".into() }));
        for none in ["", "<html>", r#"{"accepted": 5}"#, "{}"] {
            assert_eq!(Reply::read(none), None, "{none}");
        }
    }

    #[test]
    fn only_loopback_names_and_addresses_are_local_hosts() {
        for ok in ["127.0.0.1:8080", "localhost:1", "LOCALHOST", "[::1]:80", "10.0.0.2"] {
            assert!(local_host(ok), "{ok}");
        }
        for bad in ["evil.example:80", "", "127.0.0.1.nip.io", "localhost.evil"] {
            assert!(!local_host(bad), "{bad}");
        }
    }
}
