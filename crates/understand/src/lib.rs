//! What a person means, learned from many people's requests: the intent of a message (add a
//! task, note an idea, ask about the list, complete, move, cancel, ask what the agent did,
//! small talk, or none of these) and its slots (what to do, when, how often, which item) —
//! the way on-device assistants understood requests before large models: a linear classifier
//! over word and character n-grams ([`intent`]) and a linear-chain CRF over the words
//! ([`crf`]), trained on public data sets of assistant requests (`bench/understand/`), built
//! into the binary ([`model`]). It understands; it does nothing — the routine (`cn-reflex`)
//! turns what it understood into a change to the hub, and holds a change to a confidence.
//!
//! Invariants: no I/O at run time, and one allocation of the model (the blob built into the
//! binary deflated is inflated once, on first use, and its tables are read in place from it);
//! the same text gives the same answer on every machine; any text — empty, huge, emoji,
//! another script — gives an answer, never a panic.
//! Training ([`train`]) is deterministic for a given data set and seed.

pub mod crf;
pub mod features;
pub mod intent;
pub mod model;
mod rng;
mod table;
pub mod token;
pub mod train;

use std::ops::Range;
use std::sync::OnceLock;

pub use model::{Model, ModelError};

/// What a message asks, for the routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    /// A task, a reminder, an appointment, an alarm: something to do or be told of, once or
    /// recurring (a `Recur` slot).
    Add,
    /// An idea to keep for someday.
    Idea,
    /// A question about one's tasks, reminders or calendar (or about one of them).
    List,
    /// Something on the list is done.
    Complete,
    /// Something on the list moves to another time (or is snoozed).
    Move,
    /// Something on the list is cancelled.
    Cancel,
    /// "What did you do today?"
    Activity,
    /// Greetings, thanks, chat: nothing to do.
    Smalltalk,
    /// Not the routine's.
    None,
}

impl Intent {
    pub const ALL: [Intent; 9] = [
        Intent::Add,
        Intent::Idea,
        Intent::List,
        Intent::Complete,
        Intent::Move,
        Intent::Cancel,
        Intent::Activity,
        Intent::Smalltalk,
        Intent::None,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Intent::Add => "add",
            Intent::Idea => "idea",
            Intent::List => "list",
            Intent::Complete => "complete",
            Intent::Move => "move",
            Intent::Cancel => "cancel",
            Intent::Activity => "activity",
            Intent::Smalltalk => "smalltalk",
            Intent::None => "none",
        }
    }

    pub fn of(name: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.name() == name)
    }

    /// Whether doing it changes what exists (complete, move, cancel): held to the person's
    /// clear words.
    pub fn changes_what_exists(self) -> bool {
        matches!(self, Intent::Complete | Intent::Move | Intent::Cancel)
    }
}

/// A slot's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlotKind {
    /// What to do or be told ("call the bank").
    What,
    /// When ("tomorrow at ten am"), or for a move, the new time.
    When,
    /// How often ("every weekday at 7").
    Recur,
    /// Which existing item ("my meeting with john", "the dentist").
    Item,
}

impl SlotKind {
    pub const ALL: [SlotKind; 4] = [SlotKind::What, SlotKind::When, SlotKind::Recur, SlotKind::Item];

    pub fn name(self) -> &'static str {
        match self {
            SlotKind::What => "what",
            SlotKind::When => "when",
            SlotKind::Recur => "recur",
            SlotKind::Item => "item",
        }
    }

    pub fn of(name: &str) -> Option<SlotKind> {
        SlotKind::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One slot: its kind and the person's own words for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub kind: SlotKind,
    /// Where in the message (bytes).
    pub range: Range<usize>,
    pub text: String,
}

/// What a message was understood to say.
#[derive(Debug, Clone, PartialEq)]
pub struct Understood {
    pub intent: Intent,
    /// The intent's probability, 0–1.
    pub confidence: f32,
    pub slots: Vec<Slot>,
    /// Every intent with its probability, most likely first.
    pub ranked: Vec<(Intent, f32)>,
}

impl Understood {
    /// The first slot of `kind`.
    pub fn slot(&self, kind: SlotKind) -> Option<&Slot> {
        self.slots.iter().find(|s| s.kind == kind)
    }

    /// Every slot of `kind`, in order.
    pub fn slots_of(&self, kind: SlotKind) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(move |s| s.kind == kind)
    }
}

/// The model built into the binary: `model/understand.bin` deflated by build.rs (0.51 MB in
/// place of 0.89 MB).
static BUILT_IN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/understand.bin.deflate"));

/// The built-in model's blob, inflated once (lossless: `model/understand.bin`'s bytes).
fn blob() -> Result<&'static [u8], ModelError> {
    static BLOB: OnceLock<Result<Vec<u8>, ModelError>> = OnceLock::new();
    BLOB.get_or_init(|| inflate(BUILT_IN)).as_deref().map_err(Clone::clone)
}

fn inflate(packed: &[u8]) -> Result<Vec<u8>, ModelError> {
    use std::io::Read;
    let mut out = Vec::with_capacity(packed.len() * 2);
    flate2::read::DeflateDecoder::new(packed)
        .read_to_end(&mut out)
        .map_err(|e| ModelError::Corrupt { why: format!("it does not inflate: {e}") })?;
    Ok(out)
}

/// The built-in model, read once, on first use (inflated then: 0.89 MB of heap from then on).
/// A corrupt one is an error naming the fix ([`check`]ed by `cn run` at start-up, so it is
/// never first met in the middle of a request).
pub fn model() -> Result<&'static Model<'static>, ModelError> {
    static MODEL: OnceLock<Result<Model<'static>, ModelError>> = OnceLock::new();
    MODEL.get_or_init(|| Model::read(blob()?)).as_ref().map_err(Clone::clone)
}

/// Whether the built-in model reads, without keeping it: inflated, read and dropped, so a
/// daemon that understands nothing holds none of it (its first message inflates it again).
pub fn check() -> Result<(), ModelError> {
    Model::read(&inflate(BUILT_IN)?).map(|_| ())
}

/// What `text` says, by the built-in model.
pub fn understand(text: &str) -> Result<Understood, ModelError> {
    Ok(understand_with(model()?, text))
}

/// What `text` says, by `model`.
pub fn understand_with(model: &Model, text: &str) -> Understood {
    let tokens = token::tokens(text);
    let asks = text.trim_end().ends_with('?');
    let probs = model.intent.probabilities(&features::intent(&tokens, asks, model.intent.bits));
    let mut ranked: Vec<(Intent, f32)> =
        model.header.intents.iter().zip(probs).map(|(name, p)| (Intent::of(name).unwrap_or(Intent::None), p)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (intent, confidence) = ranked.first().copied().unwrap_or((Intent::None, 1.0));
    let labels = model.tagger.decode(&features::tags(&tokens, intent.name(), model.tagger.bits));
    let slots = spans(text, &tokens, &labels, &model.tagger.labels);
    Understood { intent, confidence, slots, ranked }
}

/// Labelled tokens to slots: each `B-x` and the `I-x` after it, as one span of the text.
fn spans(text: &str, tokens: &[token::Token], labels: &[usize], names: &[String]) -> Vec<Slot> {
    let mut out: Vec<Slot> = Vec::new();
    let mut open: Option<(SlotKind, Range<usize>)> = None;
    let close = |open: &mut Option<(SlotKind, Range<usize>)>, out: &mut Vec<Slot>| {
        if let Some((kind, range)) = open.take() {
            out.push(Slot { kind, text: text.get(range.clone()).unwrap_or_default().to_string(), range });
        }
    };
    for (t, &l) in tokens.iter().zip(labels) {
        let name = names.get(l).map_or("O", String::as_str);
        if let Some(k) = name.strip_prefix("I-").and_then(SlotKind::of) {
            if let Some((kind, range)) = open.as_mut().filter(|(kind, _)| *kind == k) {
                let _ = kind;
                range.end = t.range.end;
                continue;
            }
        }
        close(&mut open, &mut out);
        if let Some(k) = name.strip_prefix("B-").and_then(SlotKind::of) {
            open = Some((k, t.range.clone()));
        }
    }
    close(&mut open, &mut out);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_model_inflates_to_the_trained_blob_byte_for_byte() {
        assert_eq!(super::blob().unwrap(), include_bytes!("../model/understand.bin"));
        super::check().unwrap();
        assert!(super::BUILT_IN.len() < 600_000, "{} bytes deflated", super::BUILT_IN.len());
    }

    #[test]
    fn a_damaged_deflate_stream_is_an_error_naming_the_fix() {
        let mut bad = super::BUILT_IN[..1000].to_vec();
        bad[10] ^= 0xff;
        let e = super::inflate(&bad).and_then(|b| super::Model::read(&b).map(|_| ())).unwrap_err().to_string();
        assert!(e.contains("corrupt") && e.contains("rebuild"), "{e}");
    }
}
