//! `Salience` — how much an item deserves attention now, from its source, whether it comes
//! from the owner, its due time, its priority, its age and its novelty, with the
//! explanation the journal records.
//!
//! Every item gains salience at the same rate while it waits (from its due time if it has
//! one, else from when it arose). Because the rate is shared, the order of two items never
//! changes with time, so the pool can keep them sorted once, at admission: the stored
//! `rank` is the score minus `rate × anchor`, and the score now is `rank + rate × now`.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::Input;
use crate::impulses::ImpulseSource;
use cn_hub::Sense;

/// The weights (configurable under `attention.weights` in cn.yaml; the type lives in
/// `cn_hub::config`).
pub use cn_hub::config::Weights;

/// The weight of an item's source, and the source's name.
fn source(w: &Weights, item: &Input) -> (&'static str, f64) {
    match item {
        Input::Percept(p) => (
            item.source_name(),
            match p.sense {
                Sense::Chat => 0.0, // the owner bonus below covers it
                Sense::Discord => w.discord,
                Sense::Telegram => w.telegram,
                Sense::Email => w.email,
                Sense::Github => w.github,
                Sense::Calendar => w.calendar,
                Sense::File => w.file,
                Sense::Peer | Sense::Hub => w.peer,
            },
        ),
        Input::Impulse(i) => (
            i.source.name(),
            match i.source {
                ImpulseSource::Task => w.task,
                ImpulseSource::Schedule => w.schedule,
                ImpulseSource::Idea => w.idea,
            },
        ),
    }
}

/// Milli-points per second of waiting, as an integer so ranks compare exactly.
fn rate_milli_per_sec(w: &Weights) -> f64 {
    w.per_minute * 1000.0 / 60.0
}

/// The time-independent part of an item's score, and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Order key: higher first (owner items before all others regardless).
    pub rank: i64,
    /// Score parts other than waiting time, for the explanation.
    pub parts: Vec<(String, f64)>,
    pub anchor: Timestamp,
}

/// Score an item at admission. `repeated`: its key was decided recently.
pub fn score(item: &Input, w: &Weights, repeated: bool) -> Scored {
    let mut parts = Vec::with_capacity(5);
    if item.owner() {
        parts.push(("owner".to_string(), w.owner));
    }
    let (name, weight) = source(w, item);
    if weight != 0.0 {
        parts.push((format!("source {name}"), weight));
    }
    if item.due().is_some() {
        parts.push(("has a due time".to_string(), w.due));
    }
    if let Some(p) = item.priority() {
        let steps = 5u8.saturating_sub(p.max(1));
        if steps > 0 {
            parts.push((format!("priority {p}"), w.priority * f64::from(steps)));
        }
    }
    if repeated {
        parts.push(("seen recently".to_string(), -w.repeat));
    }
    let base: f64 = parts.iter().map(|(_, v)| v).sum();
    let anchor = item.due().unwrap_or_else(|| item.at());
    let rank = (base * 1000.0).round() as i64 - (anchor.as_second() as f64 * rate_milli_per_sec(w)).round() as i64;
    Scored { rank, parts, anchor }
}

/// An item's salience at one moment, with its explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Salience {
    pub score: f64,
    /// e.g. `62.5 = source github 40 + has a due time 20 + waited 5m +2.5`
    pub explanation: String,
}

impl Salience {
    pub fn at(scored: &Scored, w: &Weights, now: Timestamp) -> Salience {
        let waited = now.as_second() - scored.anchor.as_second();
        let time_part = waited as f64 * w.per_minute / 60.0;
        let score = scored.parts.iter().map(|(_, v)| v).sum::<f64>() + time_part;
        let mut explanation = format!("{} =", fmt_num(score));
        for (i, (name, v)) in scored.parts.iter().enumerate() {
            let op = match (i, *v < 0.0) {
                (_, true) => " -",
                (0, false) => "",
                _ => " +",
            };
            explanation.push_str(&format!("{op} {name} {}", fmt_num(v.abs())));
        }
        let label =
            if waited >= 0 { format!("waited {}", human(waited)) } else { format!("due in {}", human(-waited)) };
        let sign = if time_part < 0.0 { "-" } else { "+" };
        explanation.push_str(&format!(" {sign} {label} {}", fmt_num(time_part.abs())));
        Salience { score, explanation }
    }
}

fn fmt_num(v: f64) -> String {
    if (v - v.round()).abs() < 0.05 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

fn human(secs: i64) -> String {
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impulses::Impulse;
    use crate::percept::Percept;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn explanation_adds_up_and_order_is_stable_over_time() {
        let w = Weights::default();
        let mut p = Percept::new(Sense::Github, "issue opened");
        p.at = ts("2026-01-07T10:00:00Z");
        let gh = score(&Input::Percept(p), &w, false);
        let task = Input::Impulse(Impulse {
            id: "task-1".into(),
            source: ImpulseSource::Task,
            summary: "Review".into(),
            due: Some(ts("2026-01-07T09:00:00Z")),
            priority: Some(1),
            context: None,
            at: ts("2026-01-07T10:00:00Z"),
            data: None,
        });
        let t = score(&task, &w, false);
        let now = ts("2026-01-07T10:05:00Z");
        let s = Salience::at(&t, &w, now);
        // task 35 + due 20 + priority 1 (4 steps × 10) 40 + 65 min × 0.5 = 127.5
        assert_eq!(s.score, 127.5);
        assert_eq!(s.explanation, "127.5 = source task 35 + has a due time 20 + priority 1 40 + waited 65m 32.5");
        assert!(t.rank > gh.rank);
        // The rank difference equals the score difference at any time.
        let g = Salience::at(&gh, &w, now);
        assert_eq!(((s.score - g.score) * 1000.0).round() as i64, t.rank - gh.rank);
    }
}
