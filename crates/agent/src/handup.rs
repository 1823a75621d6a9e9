//! An owner's request is never dropped below the executive. A level below it (the reflexes,
//! the small local model) may answer the owner, but it may not close the owner's request
//! with `noop`, `ack` or `delete` — only the executive (level 3) or the owner (`cn out`)
//! does that. What such a level decides otherwise becomes the honest hand-up: the item is
//! deferred with the true reason ([`HandUp`]) — no executive configured, the thinking budget
//! spent, an effect held for the owner's approval, the executive failing — and comes back when
//! that changes: at a time (the budget's reset, a retry), when an executive is configured
//! ([`WAITS_FOR`] `executive`), or when the owner decides the held action ([`WAITS_FOR`] the
//! approval's id). The person is told the reason and what happens next.
//!
//! The time to come back of a hand-up with no better time doubles with every hand-up the item
//! already had (an hour, two, four …, at most a day), so an owner item no level can do does
//! not churn the hub.

use jiff::{SignedDuration as Duration, Timestamp};

use crate::error::Result;
use crate::gtd::{Gtd, Op};
use crate::hub::{Hub, OWNER};
use crate::item::Item;
use crate::ops::Defer;

pub use cn_compute::HAND_UP;

/// The first wait before a handed-up item is back in the queue.
const FIRST_BACK: Duration = Duration::from_hours(1);
/// The longest.
const MOST_BACK: Duration = Duration::from_hours(24);

pub use crate::answer::{HandUp, WAITS_FOR};

/// Whether `gtd`, decided on `item` below the executive, would drop an owner's request:
/// anything but an answer (`do reply`) or a defer with a time to come back.
pub fn drops_owner_request(item: &Item, gtd: &Gtd) -> bool {
    if item.from != OWNER {
        return false;
    }
    match gtd {
        Gtd::Do(Op::Reply(_)) => false,
        Gtd::Defer(d) => d.until.is_none(),
        _ => true,
    }
}

/// Whether `item` is a person's own request: the owner's, or a message a peer sent (not its
/// automatic answer or notice, and not an impulse of this agent's), whose sender hears what
/// became of it. The small local model does not decide such a message itself (the daemon's
/// vetting hands it up, [`hand_up`]): its answer or its reason would reach the sender.
pub fn from_a_person(hub: &Hub, item: &Item) -> Result<bool> {
    if item.origin_kind().is_impulse() || item.is_automatic() {
        return Ok(false);
    }
    if item.from == OWNER {
        return Ok(true);
    }
    let peers = hub.peers()?;
    let told = item.reply_to.iter().chain(std::iter::once(&item.from));
    Ok(told.into_iter().any(|p| peers.contains_key(p.as_str()) && p.as_str() != hub.name()))
}

/// The hand-up decision for `item` when only the executive can do it and it cannot take it
/// now ([`HandUp::Later`]): a defer with a time to come back.
pub fn hand_up(item: &Item, now: Timestamp) -> Gtd {
    hand_up_for(item, &HandUp::Later, None, now)
}

/// The hand-up decision for `item` for `why`: a defer with its reason, back at `until` when
/// given, never by itself when it waits for something else ([`HandUp::waits_for`]), else
/// after the doubling wait.
pub fn hand_up_for(item: &Item, why: &HandUp, until: Option<String>, now: Timestamp) -> Gtd {
    let until = match (until, why.waits_for()) {
        (Some(u), _) => Some(u),
        (None, Some(_)) => None,
        (None, None) => Some(cn_storage::rfc3339(now + wait(item))),
    };
    Gtd::Defer(Defer { reason: why.reason(), until })
}

/// How long a hand-up of `item` waits: an hour, doubled for every hand-up it already had.
fn wait(item: &Item) -> Duration {
    let before = item.content.matches("handed up").count().max(item.content.matches(HAND_UP).count()).min(16) as u32;
    (FIRST_BACK * 2_i32.saturating_pow(before)).min(MOST_BACK)
}

/// A defer decided below the executive waits at least as long as a hand-up would. A time that
/// has passed or is about to — the small model copies the prompt's "Now:" or today's date into
/// `until` — would bring the item straight back to be deferred again, round and round. A
/// defer without a time would park the item for good — a stranger's message that talked the
/// small model into it would never reach the executive — so it comes back as a hand-up does.
/// The reason is kept; a time it cannot read is left for the op to refuse.
pub fn no_sooner_than_a_hand_up(item: &Item, gtd: Gtd, now: Timestamp) -> Gtd {
    let Gtd::Defer(Defer { reason, until }) = gtd else { return gtd };
    let soonest = now + wait(item);
    let Some(until) = until else {
        return Gtd::Defer(Defer { reason, until: Some(cn_storage::rfc3339(soonest)) });
    };
    let at = crate::ops::parse_until(&until).ok().and_then(|u| cn_storage::parse_rfc3339(&u)).map(|(t, _)| t);
    let until = match at {
        Some(t) if t < soonest => cn_storage::rfc3339(soonest),
        _ => until,
    };
    Gtd::Defer(Defer { reason, until: Some(until) })
}

/// What a level below the executive decides ([`crate::decide::Check::BelowExecutive`]), under
/// the hub lock: `gtd` as given, unless it would drop an owner's request or answer a person
/// with a token — then the hand-up instead, with its reason. A model's own defer (`models_own`)
/// also waits at least as long as a hand-up ([`no_sooner_than_a_hand_up`]).
pub(crate) fn below_executive(hub: &Hub, gtd: &Gtd, models_own: bool) -> Result<(Gtd, Option<HandUp>)> {
    let now = Timestamp::now();
    Ok(match Item::read_opt(&hub.input())? {
        Some(item) if drops_owner_request(&item, gtd) || token_answer_to_a_person(&item, gtd) => {
            (hand_up(&item, now), Some(HandUp::Later))
        }
        Some(item) if models_own => (no_sooner_than_a_hand_up(&item, gtd.clone(), now), None),
        _ => (gtd.clone(), None),
    })
}

/// Whether `gtd` answers a person's message with a token — "👍", "ok", "noted", "got it" —
/// which neither does nor answers what was asked: a dropped request, never sent.
pub fn token_answer_to_a_person(item: &Item, gtd: &Gtd) -> bool {
    match gtd {
        Gtd::Do(Op::Reply(r)) => item.origin_kind().is_message() && is_token_answer(&r.message),
        _ => false,
    }
}

pub use cn_hub::origin::is_token_answer;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Cadence;
    use crate::ops::{Noop, Reply};

    #[test]
    fn only_answers_and_timed_defers_pass_for_the_owner() {
        let owner = Item::new("a1", OWNER, Cadence::Inbox, "review my post");
        let peer = Item::new("a2", "pi", Cadence::Inbox, "hi");
        let noop = Gtd::Do(Op::Noop(Noop { reason: "No action taken".into() }));
        assert!(drops_owner_request(&owner, &noop));
        assert!(!drops_owner_request(&peer, &noop));
        assert!(!drops_owner_request(&owner, &Gtd::Do(Op::Reply(Reply { message: "hi".into() }))));
        assert!(drops_owner_request(&owner, &Gtd::Defer(Defer { reason: "later".into(), until: None })));
    }

    #[test]
    fn a_defer_below_the_executive_does_not_come_straight_back() {
        let now: Timestamp = "2026-11-24T08:59:30Z".parse().unwrap();
        let item = Item::new("m1", "beta", Cadence::Inbox, "Hello! I'm beta.");
        let defer = |until: &str| Gtd::Defer(Defer { reason: "later".into(), until: Some(until.into()) });
        let until = |g: Gtd| match g {
            Gtd::Defer(d) => (d.reason, d.until.unwrap()),
            other => panic!("{other:?}"),
        };
        // Today's date (midnight, passed), the prompt's minute, a minute on: an hour on instead.
        for copied in ["2026-11-24", "2026-11-24T08:59:00Z", "2026-11-24T09:00:30Z"] {
            assert_eq!(
                until(no_sooner_than_a_hand_up(&item, defer(copied), now)),
                ("later".to_string(), "2026-11-24T09:59:30Z".to_string()),
                "{copied}"
            );
        }
        // A real wait is kept, and so is a time the op will refuse.
        assert_eq!(until(no_sooner_than_a_hand_up(&item, defer("2026-11-26"), now)).1, "2026-11-26");
        assert_eq!(until(no_sooner_than_a_hand_up(&item, defer("soon"), now)).1, "soon");
        // No time at all: it would wait for good; it comes back as a hand-up does.
        let parked = Gtd::Defer(Defer { reason: "later".into(), until: None });
        assert_eq!(
            until(no_sooner_than_a_hand_up(&item, parked, now)),
            ("later".to_string(), "2026-11-24T09:59:30Z".to_string())
        );
    }

    #[test]
    fn the_wait_doubles_with_each_hand_up_up_to_a_day() {
        let now = Timestamp::UNIX_EPOCH;
        let mut item = Item::new("a1", OWNER, Cadence::Inbox, "review my post");
        let until = |g: Gtd| match g {
            Gtd::Defer(d) => d.until.unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(until(hand_up(&item, now)), "1970-01-01T01:00:00Z");
        item.content.push_str(&format!("\n## defer\n\ndeferred: {HAND_UP}\n"));
        assert_eq!(until(hand_up(&item, now)), "1970-01-01T02:00:00Z");
        item.content.push_str(&HAND_UP.repeat(10));
        assert_eq!(until(hand_up(&item, now)), "1970-01-02T00:00:00Z");
    }
}
