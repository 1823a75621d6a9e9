//! Training: labelled requests → a model blob. Used by `examples/train.rs` (the one command
//! that remakes `model/understand.bin` from the assembled data, `bench/understand/train.sh`)
//! and by the tests.
//!
//! A labelled request carries its slots as byte ranges of its text; a token that overlaps a
//! slot takes the slot's label (`B-` for the first, `I-` after). Invariant: the same examples,
//! in the same order, with the same [`Config`], make the same bytes.

use std::ops::Range;

use crate::crf::{Crf, Sentence};
use crate::intent::{Classifier, Example, Training};
use crate::model::Model;
use crate::token::tokens;
use crate::{features, Intent, SlotKind};

/// One request with what it means.
#[derive(Debug, Clone, PartialEq)]
pub struct Labelled {
    pub text: String,
    pub intent: Intent,
    pub slots: Vec<(SlotKind, Range<usize>)>,
    /// Where it came from (a data set's name).
    pub source: String,
    /// How much it counts in training.
    pub weight: f32,
    /// Whether its slots are marked (a source with intents only teaches the tagger nothing).
    pub slots_known: bool,
}

/// How the models are trained.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    pub intent_bits: u32,
    pub tag_bits: u32,
    pub intent_epochs: usize,
    pub tag_epochs: usize,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config { intent_bits: 16, tag_bits: 15, intent_epochs: 8, tag_epochs: 6, seed: 0x636e_2d75 }
    }
}

/// The tagger's labels: `O`, then `B-`/`I-` of each slot kind.
pub fn labels() -> Vec<String> {
    let mut l = vec!["O".to_string()];
    for k in SlotKind::ALL {
        l.push(format!("B-{}", k.name()));
        l.push(format!("I-{}", k.name()));
    }
    l
}

/// The gold label of each token of `e`.
pub fn gold(e: &Labelled) -> (Vec<crate::token::Token>, Vec<usize>) {
    let toks = tokens(&e.text);
    let names = labels();
    let index = |n: &str| names.iter().position(|x| x == n).unwrap_or(0);
    let mut out = vec![0usize; toks.len()];
    for (kind, range) in &e.slots {
        let mut first = true;
        for (i, t) in toks.iter().enumerate() {
            if t.range.start < range.end && range.start < t.range.end {
                if out[i] != 0 {
                    // Overlapping slots: the first one keeps the token.
                    first = false;
                    continue;
                }
                out[i] = index(&format!("{}-{}", if first { "B" } else { "I" }, kind.name()));
                first = false;
            }
        }
    }
    (toks, out)
}

/// Train both models and write the blob.
pub fn train(examples: &[Labelled], config: Config, data: String) -> Vec<u8> {
    let intents: Vec<String> = Intent::ALL.iter().map(|i| i.name().to_string()).collect();
    // Each intent weighs as much in all as in the data, but none less than a tenth of the
    // largest: a rare intent is not drowned.
    let mut count = [0usize; 9];
    for e in examples {
        count[e.intent as usize] += 1;
    }
    let most = count.iter().copied().max().unwrap_or(1).max(1) as f32;
    let boost: Vec<f32> =
        count.iter().map(|&c| if c == 0 { 1.0 } else { (most / 10.0 / c as f32).max(1.0).sqrt() }).collect();
    let class_examples: Vec<Example> = examples
        .iter()
        .map(|e| {
            let toks = tokens(&e.text);
            Example {
                features: features::intent(&toks, e.text.trim_end().ends_with('?'), config.intent_bits),
                class: e.intent as usize,
                weight: e.weight * boost[e.intent as usize],
            }
        })
        .collect();
    let mut classifier = Classifier::new(intents.len(), config.intent_bits);
    classifier
        .train(&class_examples, Training { epochs: config.intent_epochs, rate: 0.2, l2: 1e-6, seed: config.seed });
    let sentences: Vec<Sentence> = examples
        .iter()
        .filter(|e| e.slots_known)
        .map(|e| {
            let (toks, labels) = gold(e);
            Sentence { features: features::tags(&toks, e.intent.name(), config.tag_bits), labels }
        })
        .collect();
    let mut tagger = Crf::new(labels(), config.tag_bits);
    tagger.train(&sentences, config.tag_epochs, 0.2, 1e-6, config.seed ^ 0x5a5a);
    let mut sources: Vec<(String, usize)> = Vec::new();
    for e in examples {
        match sources.iter_mut().find(|(s, _)| *s == e.source) {
            Some((_, n)) => *n += 1,
            None => sources.push((e.source.clone(), 1)),
        }
    }
    Model::write(&intents, &classifier, &tagger, sources, data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understand_with;

    fn ex(text: &str, intent: Intent, slots: &[(SlotKind, &str)]) -> Labelled {
        let slots = slots
            .iter()
            .map(|(k, s)| {
                let at = text.find(s).unwrap_or(0);
                (*k, at..at + s.len())
            })
            .collect();
        Labelled { text: text.into(), intent, slots, source: "toy".into(), weight: 1.0, slots_known: true }
    }

    #[test]
    fn a_small_model_learns_intents_and_slots() {
        let mut data = Vec::new();
        for (what, when) in
            [("call mom", "tomorrow"), ("buy milk", "at 5pm"), ("pay rent", "on friday"), ("feed the cat", "tonight")]
        {
            data.push(ex(
                &format!("remind me to {what} {when}"),
                Intent::Add,
                &[(SlotKind::What, what), (SlotKind::When, when)],
            ));
            data.push(ex(&format!("cancel the reminder to {what}"), Intent::Cancel, &[(SlotKind::Item, what)]));
        }
        for t in ["play some jazz", "what's the weather like", "tell me a joke", "turn off the lights"] {
            data.push(ex(t, Intent::None, &[]));
        }
        let blob = train(
            &data,
            Config { intent_bits: 12, tag_bits: 12, intent_epochs: 30, tag_epochs: 30, seed: 1 },
            String::new(),
        );
        let again = train(
            &data,
            Config { intent_bits: 12, tag_bits: 12, intent_epochs: 30, tag_epochs: 30, seed: 1 },
            String::new(),
        );
        assert_eq!(blob, again, "training is deterministic");
        let m = Model::read(&blob).unwrap();
        let u = understand_with(&m, "remind me to water plants tomorrow");
        assert_eq!(u.intent, Intent::Add);
        assert_eq!(u.slot(SlotKind::When).map(|s| s.text.as_str()), Some("tomorrow"));
        assert_eq!(u.slot(SlotKind::What).map(|s| s.text.as_str()), Some("water plants"));
        assert_eq!(understand_with(&m, "play some music").intent, Intent::None);
    }
}
