//! The frontmatter reader (every item, task.md and mail goes through it), fed arbitrary text
//! biased toward its syntax: it may refuse, never panic (release builds abort on panic). The
//! quick companion of the libFuzzer targets under `fuzz/`.

use cn_testkit::hostile::{config, texty};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn frontmatter(s in texty()) {
        let _ = cn_storage::Doc::parse(&s);
    }
}
