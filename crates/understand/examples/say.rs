//! What the built-in model reads in each argument: `cargo run -p cn-understand --example say
//! -- "remind me to call mom at 6"`.

fn main() {
    for text in std::env::args().skip(1) {
        match cn_understand::understand(&text) {
            Ok(u) => {
                let slots: Vec<String> = u.slots.iter().map(|s| format!("{}=“{}”", s.kind.name(), s.text)).collect();
                let ranked: Vec<String> =
                    u.ranked.iter().take(3).map(|(i, p)| format!("{} {:.2}", i.name(), p)).collect();
                println!("{text}\n    {} [{}] {}", u.intent.name(), ranked.join(", "), slots.join(" "));
            }
            Err(e) => eprintln!("{e}"),
        }
    }
}
