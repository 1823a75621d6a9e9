//! An owner's request is never dropped below the executive. A level below it (the reflexes,
//! the small local model) may answer the owner, but it may not close the owner's request
//! with `noop`, `ack` or `delete` — only the executive (level 3) or the owner (`cn out`)
//! does that. What such a level decides otherwise becomes the honest hand-up: the item is
//! deferred with [`HAND_UP`] as its reason and a time to come back to the queue, when the
//! executive (or a level that can) takes it.
//!
//! The time to come back doubles with every hand-up the item already had (an hour, two,
//! four …, at most a day), so an owner item no level can do does not churn the hub.

use time::{Duration, OffsetDateTime};

use crate::decide::decide_locked_as;
use crate::error::Result;
use crate::gtd::{Gtd, Op};
use crate::hub::{Hub, OWNER};
use crate::item::Item;
use crate::lock::lock;
use crate::ops::Defer;
use crate::Decided;

pub use cn_compute::HAND_UP;

/// The first wait before a handed-up item is back in the queue.
const FIRST_BACK: Duration = Duration::hours(1);
/// The longest.
const MOST_BACK: Duration = Duration::days(1);

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
    if item.doc.get_str("impulse").is_some() || item.is_automatic() {
        return Ok(false);
    }
    if item.from == OWNER {
        return Ok(true);
    }
    let peers = hub.peers()?;
    let told = item.reply_to.iter().chain(std::iter::once(&item.from));
    Ok(told.into_iter().any(|p| peers.contains_key(p.as_str()) && p.as_str() != hub.name()))
}

/// The hand-up decision for `item`: a defer with [`HAND_UP`] and when it comes back.
pub fn hand_up(item: &Item, now: OffsetDateTime) -> Gtd {
    let before = item.content.matches(HAND_UP).count().min(16) as u32;
    let back = (FIRST_BACK * 2_i32.saturating_pow(before)).min(MOST_BACK);
    Gtd::Defer(Defer { reason: HAND_UP.to_string(), until: Some(cn_storage::rfc3339(now + back)) })
}

/// A task's item deferred without a time gets one (a day on): a commitment always comes back.
pub fn with_next_time(item: &Item, gtd: Gtd, now: OffsetDateTime) -> Gtd {
    match gtd {
        Gtd::Defer(Defer { reason, until: None }) if item.doc.get_str("task").is_some() => {
            Gtd::Defer(Defer { reason, until: Some(cn_storage::rfc3339(now + Duration::days(1))) })
        }
        other => other,
    }
}

/// Decide the current item as a level below the executive: `gtd` as given, unless it would
/// drop an owner's request — then the hand-up instead. Its answers are automatic messages
/// (never sent in reply to another agent's automatic message). Holds the hub lock.
pub fn decide_below_executive(hub: &Hub, gtd: &Gtd) -> Result<Decided> {
    let _lock = lock(hub)?;
    crate::decide::recover_locked(hub)?;
    let gtd = match Item::read_opt(&hub.input())? {
        Some(item) if drops_owner_request(&item, gtd) => hand_up(&item, OffsetDateTime::now_utc()),
        _ => gtd.clone(),
    };
    decide_locked_as(hub, &gtd, true)
}

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
    fn the_wait_doubles_with_each_hand_up_up_to_a_day() {
        let now = OffsetDateTime::UNIX_EPOCH;
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
