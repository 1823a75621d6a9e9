//! What a peer or a command line hands cn-agent — `cn out`'s arguments, a mail, a sync's
//! batch of git objects, a mail commit's envelope — fed arbitrary bytes and text biased toward
//! their syntax: each may refuse, none may panic (release builds abort on panic, so a panic is
//! a dead daemon). The quick companion of the libFuzzer targets under `fuzz/`.

use cn_testkit::hostile::{bytes, config, texty};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cn_out_arguments(args in prop::collection::vec(texty(), 0..8)) {
        let _ = cn_agent::parse_out(&args);
    }

    #[test]
    fn mail(s in texty()) {
        let _ = cn_agent::Mail::parse(&s);
    }

    #[test]
    fn sync_batch_reader(b in bytes(), n in 0usize..5) {
        let _ = cn_agent::sync::parse_batch(&b, n);
        let _ = cn_agent::envelope::Envelope::from_commit(&b);
    }
}
