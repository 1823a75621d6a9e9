//! models — decisions: the providers behind the kernel's `Model` trait, the prompt `plan`
//! builds, and the thinking budget. No other crate talks to a model.
