//! A reflex file (`state/reflexes/NAME.yaml`), compiled against the real core actions: the
//! YAML, the trigger, its regex, the pipeline's steps and variables.
#![no_main]
use std::collections::BTreeSet;
use std::path::Path;

use libfuzzer_sys::fuzz_target;

thread_local! {
    /// An engine over an empty hub, only for its registry of core actions.
    static ENGINE: (tempfile::TempDir, cn_reflex::Engine) = {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let engine = cn_reflex::Engine::with_config(&cn_hub::Layout::new(dir.path()), Default::default(), cn_tools::Policy::default());
        (dir, engine)
    };
}

fuzz_target!(|text: &str| {
    ENGINE.with(|(_, engine)| {
        let callables = BTreeSet::from(["helper".to_string()]);
        let _ = cn_reflex::reflex::compile(Path::new("r.yaml"), text, engine.registry(), &callables);
    });
});
