//! cn-reflex's integration tests, in one binary: the engine on a real hub directory, as
//! `cn reflex test` runs it, against a real HTTP server on loopback. `cn reflex test`'s and
//! `list`'s own output is the binary's.

mod fetch;
mod sandbox;
mod starter;
mod summarize;
mod support;
