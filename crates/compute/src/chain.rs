//! An error as a message: its own text, then each cause in turn, joined by `: ` — what
//! `anyhow`'s `{:#}` prints. Libraries keep a cause as `source()`, never also in their own
//! message; every edge that turns an error into text (a tool result, a journal entry's
//! reason, a JSON refusal, a log line) prints it through [`Chain`], so the cause is said once.

use std::error::Error;
use std::fmt;

/// Display an error with its chain of sources: `cannot read cn.yaml: Permission denied`.
pub struct Chain<'a>(pub &'a (dyn Error + 'a));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut next = self.0.source();
        while let Some(e) = next {
            write!(f, ": {e}")?;
            next = e.source();
        }
        Ok(())
    }
}

/// [`Chain`] as a `String`, for `map_err(chain)` and the like.
pub fn chain(e: &(dyn Error + '_)) -> String {
    Chain(e).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read {path}")]
    struct ReadError {
        path: String,
        source: std::io::Error,
    }

    #[test]
    fn a_chain_names_each_cause_once() {
        let e = ReadError { path: "cn.yaml".into(), source: std::io::Error::other("Permission denied") };
        assert_eq!(chain(&e), "cannot read cn.yaml: Permission denied");
        assert_eq!(chain(&e.source), "Permission denied");
    }
}
