//! plan — asking strategy. Builds the value `ask` consumes and records the level it chose,
//! so `act` enforces that level's policy. It never requests intelligence itself.

use crate::state::State;
use crate::Plan;

pub fn plan(state: &mut State) -> Plan {
    let plan = state.mind.plan(&state.outcomes);
    state.level = plan.level;
    plan
}
