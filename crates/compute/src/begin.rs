//! begin — the entry point. Chains `prepare` → `loop` and nothing else.

use crate::prepare::{Inputs, PrepareError};
use crate::state::State;

pub fn begin(inputs: Inputs) -> Result<State, PrepareError> {
    Ok(crate::r#loop(crate::prepare(inputs)?))
}
