//! cn-compute's integration tests, in one binary: the kernel's loop end to end, and its
//! parser of model answers against hostile text.

mod hostile;
mod kernel;
