//! cn-agent's integration tests, in one binary.

mod hostile;
