//! process — the processes cn starts: the one runner for child processes (`child`: cleared
//! environment, time limit, output cap, own process group killed whole), the sandbox a child
//! runs in (`sandbox`: Landlock, seccomp and namespaces, from what the kernel gives) and
//! redaction (`redact`: credentials out of errors, outside text as a terminal may show it).
//!
//! Invariant: this crate knows no hub. What a sandbox protects is given to it as paths and
//! predicates by the caller that knows the tree's layout (`cn_hub::protect`, composed in
//! `cn_tools::sandbox`).

pub mod child;
pub mod redact;
pub mod sandbox;
