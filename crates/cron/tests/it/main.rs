//! cn-cron's integration tests, in one binary.

mod hostile;
mod next;
