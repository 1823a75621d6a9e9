//! Durations in cn.yaml: `5s`, `1m`, `500ms`, `1h 30m`, or a number of seconds.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer};

/// A duration that is none (the message is serde's, naming the key and line).
#[derive(Debug, thiserror::Error)]
pub enum DurationError {
    #[error("`{text}` is out of range")]
    Secs { text: String, source: std::time::TryFromFloatSecsError },
    #[error(transparent)]
    Number(#[from] std::time::TryFromFloatSecsError),
    #[error("`{text}` is not a duration such as 5s, 1m or 500ms")]
    Text { text: String, source: jiff::Error },
    #[error("`{text}` is negative")]
    Negative { text: String },
}

pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs)
            .map_err(|source| DurationError::Secs { text: text.to_string(), source });
    }
    let sd: jiff::SignedDuration =
        t.parse().map_err(|source| DurationError::Text { text: text.to_string(), source })?;
    Duration::try_from(sd).map_err(|_| DurationError::Negative { text: text.to_string() })
}

pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    let sd = jiff::SignedDuration::try_from(*d).map_err(serde::ser::Error::custom)?;
    s.serialize_str(&format!("{sd:#}"))
}

/// A duration as written in YAML: seconds as a number, or text such as `5s`.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Raw {
    Secs(f64),
    Text(String),
}

impl Raw {
    pub fn duration(self) -> Result<Duration, DurationError> {
        match self {
            Raw::Secs(s) => Ok(Duration::try_from_secs_f64(s)?),
            Raw::Text(t) => parse(&t),
        }
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    Raw::deserialize(d)?.duration().map_err(serde::de::Error::custom)
}
