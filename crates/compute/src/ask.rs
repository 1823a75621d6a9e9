//! ask — the intelligence request. Sends the plan to the model, stores the interaction,
//! returns the answer's markdown (with its cost). It does not interpret the answer.

use crate::state::State;
use crate::{Answer, ModelError, Plan};

pub fn ask(state: &mut State, plan: Plan) -> Result<Answer, ModelError> {
    let answer = state.model.ask(&plan);
    state.store.interaction(&plan, &answer);
    answer
}
