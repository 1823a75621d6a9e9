//! The parser of model answers, fed arbitrary text biased toward its syntax: it may refuse,
//! never panic (release builds abort on panic, so a panic is a dead daemon). The quick
//! companion of the libFuzzer targets under `fuzz/`.

use cn_testkit::hostile::{config, texty};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn model_answers(s in texty()) {
        let _ = cn_compute::parse(&s);
    }
}
