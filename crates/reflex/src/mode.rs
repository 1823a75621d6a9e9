//! How a run treats effects: live, test or dry run.
//!
//! The engine sets it per run and the actions read it (a `reply` in a test only says what it
//! would send), so it lives here, below both.

/// How a run treats effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// For real: effects, journal, analytics.
    #[default]
    Live,
    /// `cn reflex test`: effects run except `reply`/`react`, which only say what they would
    /// send; journaled with `test: true`; not counted in analytics.
    Test,
    /// Nothing with an effect runs (fetches included); nothing is journaled or counted.
    DryRun,
    /// A shadow reflex's run: as a dry run (no effect, fetches, local model and files
    /// included), but each effect's full text is kept as what it would have done, and the
    /// run is journaled (`action: shadow`) to be compared with the real decision.
    Shadow,
}
