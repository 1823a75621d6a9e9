//! `Channel` — a sense's answering half: the seed's typing indicator ("start typing when
//! processing begins, maintain it while thinking, stop when the response is sent or processing
//! ends") and the delivery of an answer or a reminder. A sense that can answer (Telegram,
//! Discord, email) hands one out when it starts ([`crate::senses::Running`]); the daemon's mind
//! holds them all in [`Channels`], which routes each item by one `match` on where its answer
//! goes ([`Channels::route`]): a channel is called only for what is its own, with its own data
//! (a chat id, a mail thread), and never asks whether an item is its own.
//!
//! Invariant: the calls return quickly and never fail the loop — a channel logs its own
//! failures (an answer that cannot be delivered is still decided in the hub).

use cn_agent::{Decided, Item};
use cn_compute::Level;
use cn_hub::origin::AnswerTo;

use crate::senses::discord::{self, DiscordChannel};
#[cfg(feature = "email")]
use crate::senses::email::{self, EmailChannel};
use crate::senses::telegram::{self, TelegramChannel};
use crate::senses::SenseError;

/// A place the agent answers on, at `At`: where on it (its [`AnswerTo`] variant's data, read
/// as the platform needs it). Reached only through [`Channels::route`].
pub trait Channel: Send {
    type At;
    /// A model is about to work on `item` at `level` (called before every such move): show the
    /// typing indicator at `at`.
    fn typing(&mut self, at: &Self::At, item: &Item, level: Level) {
        let _ = (at, item, level);
    }
    /// `item` left the current slot: decided, and the sender is `told` this ([`Decided::told`]:
    /// a reply, or why their request was handed up), or returned to the queue or decided
    /// without a word for them (`None`). Any end stops the typing indicator.
    fn finished(&mut self, at: Self::At, item: &Item, told: Option<String>);
    /// Tell a person `text` at a time they chose (a reminder they asked for); the message
    /// answers the one they asked in, where the channel can.
    fn tell(&mut self, at: Self::At, text: &str) -> Result<(), SenseError>;
}

/// The senses' channels, one of each kind at most: the one router of answers.
#[derive(Default)]
pub struct Channels {
    pub(crate) telegram: Option<TelegramChannel>,
    pub(crate) discord: Option<DiscordChannel>,
    #[cfg(feature = "email")]
    pub(crate) email: Option<EmailChannel>,
}

/// Where an answer goes, as [`Channels::route`] finds it.
pub enum Route<'a> {
    /// A sense's channel, with the answer's place on it.
    Sense(On<'a>),
    /// A sense's channel, but that sense is not running (or the place does not read as one).
    NoSense,
    /// The owner's chat: `cn chat` and the control room read the hub.
    Chat,
    /// A peer, by name: mail over git.
    Peer(&'a str),
    /// Nobody waits for an answer.
    Nobody,
}

/// A channel with where on it to answer.
pub struct On<'a>(Box<dyn Answering + 'a>);

impl On<'_> {
    /// Tell a person `text` (a reminder): whether it was delivered.
    pub fn tell(self, text: &str) -> Result<(), SenseError> {
        self.0.tell(text)
    }
}

/// [`Channel`] with its place bound, so one `On` holds any channel.
trait Answering {
    fn typing(&mut self, item: &Item, level: Level);
    fn finished(self: Box<Self>, item: &Item, told: Option<String>);
    fn tell(self: Box<Self>, text: &str) -> Result<(), SenseError>;
}

struct Bound<'a, C: Channel>(&'a mut C, C::At);

impl<C: Channel> Answering for Bound<'_, C> {
    fn typing(&mut self, item: &Item, level: Level) {
        self.0.typing(&self.1, item, level);
    }
    fn finished(self: Box<Self>, item: &Item, told: Option<String>) {
        self.0.finished(self.1, item, told);
    }
    fn tell(self: Box<Self>, text: &str) -> Result<(), SenseError> {
        self.0.tell(self.1, text)
    }
}

/// `channel` at `at`, when both are there.
fn on<'a, C: Channel + 'a>(channel: Option<&'a mut C>, at: Option<C::At>) -> Route<'a>
where
    C::At: 'a,
{
    match (channel, at) {
        (Some(channel), Some(at)) => Route::Sense(On(Box::new(Bound(channel, at)))),
        _ => Route::NoSense,
    }
}

impl Channels {
    /// Every channel of `self`, and those of `other` that `self` lacks.
    pub(crate) fn or(self, other: Channels) -> Channels {
        Channels {
            telegram: self.telegram.or(other.telegram),
            discord: self.discord.or(other.discord),
            #[cfg(feature = "email")]
            email: self.email.or(other.email),
        }
    }

    /// Where an answer to `to` goes: the one `match` on it.
    pub fn route<'a>(&'a mut self, to: &'a AnswerTo) -> Route<'a> {
        match to {
            AnswerTo::Chat => Route::Chat,
            AnswerTo::Telegram { chat, message } => on(self.telegram.as_mut(), telegram::at(chat, message.as_deref())),
            AnswerTo::Discord { channel, .. } => on(self.discord.as_mut(), discord::at(channel)),
            #[cfg(feature = "email")]
            AnswerTo::Email { to, message, subject, references, no_reply } => on(
                self.email.as_mut(),
                Some(email::Thread::new(to, message.as_deref(), subject.as_deref(), references.as_deref(), *no_reply)),
            ),
            #[cfg(not(feature = "email"))]
            AnswerTo::Email { .. } => Route::NoSense,
            AnswerTo::Peer { to } => Route::Peer(to),
            AnswerTo::None => Route::Nobody,
        }
    }

    /// A model is about to work on `item` at `level`: the typing indicator where it came from.
    pub fn typing(&mut self, item: &Item, level: Level) {
        let Some(to) = item.answer_to() else { return };
        if let Route::Sense(mut on) = self.route(&to) {
            on.0.typing(item, level);
        };
    }

    /// `item` left the current slot, `decided` (as its decider returned it) or returned to the
    /// queue (`None`): the sender is told what [`Decided::told`] says where it came from, and
    /// the typing indicator stops.
    pub fn finished(&mut self, item: &Item, decided: Option<&Decided>) {
        let Some(to) = item.answer_to() else { return };
        if let Route::Sense(on) = self.route(&to) {
            on.0.finished(item, decided.and_then(Decided::told));
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_routed_by_where_it_goes_and_a_sense_not_running_is_said() {
        let mut none = Channels::default();
        let telegram = AnswerTo::Telegram { chat: "42".into(), message: None };
        let discord = AnswerTo::Discord { channel: "7".into(), message: Some("8".into()) };
        let email = AnswerTo::Email {
            to: "a@example.org".into(),
            message: None,
            subject: None,
            references: None,
            no_reply: false,
        };
        for to in [&telegram, &discord, &email] {
            assert!(matches!(none.route(to), Route::NoSense), "{to:?}");
        }
        assert!(matches!(none.route(&AnswerTo::Chat), Route::Chat));
        assert!(matches!(none.route(&AnswerTo::Peer { to: "pi".into() }), Route::Peer("pi")));
        assert!(matches!(none.route(&AnswerTo::None), Route::Nobody));
    }
}
