//! Shared by the `loops_*` tests of the binary: real git repositories in temp dirs and the
//! real `cn` binary. The loops themselves are cn-loops's tests (crates/loops/tests/it).
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

pub use cn_testkit::{git, loop_repo as repo, show, subjects, text, write_exec};

pub fn cn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cn"));
    c.env_remove("CN_HUB").env_remove("CN_LOG");
    c
}

pub fn run(dir: &Path, args: &[&str]) -> Output {
    cn().args(args).arg(dir).output().unwrap()
}
