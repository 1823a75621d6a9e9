//! cn-loops's integration tests, in one binary: loops on real git repositories with real
//! toolchains, driven through the crate's API (`support`), in a process of their own where a
//! test kills or attacks the loop's process. `cn loop`'s own flags and exit codes are the
//! binary's tests (crates/cn/tests/it/loops_cli.rs).

mod hostile;
mod input;
mod resume;
mod support;
mod toolchains;
mod trust;
mod walkthrough;
