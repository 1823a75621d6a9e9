//! `Channel` — where an item came from, as a place to answer: the seed's typing indicator
//! ("start typing when processing begins, maintain it while thinking, stop when the response
//! is sent or processing ends") and the delivery of the answer. A sense that can answer (Discord
//! today; Telegram and email next) hands one out when it starts ([`crate::senses::Running`]);
//! the daemon's mind calls every channel for every item, and each acts only on its own items.
//!
//! Invariant: both calls return quickly and never fail the loop — a channel logs its own
//! failures (an answer that cannot be delivered is still decided in the hub).

use cn_agent::{Decided, Item};
use cn_compute::Level;

/// A place the agent answers on: typing indicator while a model works, the answer when the
/// item is decided.
pub trait Channel: Send {
    /// A model is about to work on `item` at `level` (called before every such move): show
    /// the typing indicator where the item came from, if it came from this channel.
    fn typing(&mut self, item: &Item, level: Level);
    /// `item` left the current slot: decided (`decided`, as its decider returned it), or
    /// returned to the queue (`None`). What the sender is told ([`Decided::told`]: a reply, or
    /// why their request was handed up) is delivered here; any end stops the typing indicator.
    fn finished(&mut self, item: &Item, decided: Option<&Decided>);
    /// Tell a person `text` at a time they chose (a reminder they asked for), where `to`
    /// says: `None` when `to` is not this channel's; else whether it was delivered. The
    /// message answers the one they asked in, where the channel can.
    fn tell(&mut self, to: &cn_hub::origin::AnswerTo, text: &str) -> Option<Result<(), crate::senses::SenseError>> {
        let _ = (to, text);
        None
    }
}
