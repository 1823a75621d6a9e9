//! decide — motion selection: the only place that chooses action or stillness.

use crate::state::State;
use crate::Decision;

pub fn decide(state: &mut State) -> Decision {
    state.mind.decide(&state.outcomes)
}
