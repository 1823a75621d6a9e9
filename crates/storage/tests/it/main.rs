//! cn-storage's integration tests, in one binary.

mod hostile;
