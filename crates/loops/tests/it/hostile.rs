//! task.md and a controller's answer (a model's, or a command's file), fed arbitrary text
//! biased toward their syntax: each may refuse, none may panic (release builds abort on
//! panic). The quick companion of the libFuzzer targets under `fuzz/`.

use cn_testkit::hostile::{config, texty};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn task_md(s in texty()) {
        let _ = cn_loops::Task::parse(&s, &cn_loops::Defaults::default());
        let _ = cn_loops::parse_answer(&s);
    }
}
