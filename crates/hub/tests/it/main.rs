//! cn-hub's integration tests, in one binary.

mod hostile;
