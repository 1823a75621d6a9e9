//! cn-models's integration tests, in one binary (ripgrep's layout): a binary per test file, each
//! linking the whole stack, filled CI's disk and dominated its build.

mod children;
mod faults;
mod hostile;
mod local_model;
