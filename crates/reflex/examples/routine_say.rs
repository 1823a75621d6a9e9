//! What the routine makes of each argument at the corpus's fixed now (Thu 26 Nov 2026 14:30,
//! Europe/Paris): `cargo run -p cn-reflex --example routine_say -- "remind me …"`.

fn main() {
    let now: jiff::Zoned = cn_reflex::routine::corpus::NOW.parse().expect("the corpus's now reads");
    for text in std::env::args().skip(1) {
        let u = cn_understand::understand(&text).map(|u| format!("{} {:.2} {:?}", u.intent.name(), u.confidence, u.slots.iter().map(|s| (s.kind.name(), s.text.clone())).collect::<Vec<_>>()));
        println!("{text}\n    model: {u:?}\n    learned: {:?}\n    routine: {:?}", cn_reflex::routine::learned::clause(&text, &now), cn_reflex::routine::parse(&text, &now));
    }
}
