//! act — execution of exactly one tool call under the current level's policy. Observes the
//! result and stores the action with it. An unknown tool or bad params is an error result
//! the model sees next turn, never a panic or a stop.

use crate::state::State;
use crate::{Outcome, ToolCall};

pub fn act(state: &mut State, call: ToolCall) -> Outcome {
    let result = state.tools.call(state.level, &call);
    let outcome = Outcome::Acted { call, result };
    state.store.action(state.level, &outcome);
    outcome
}
