//! loop — continuity. Owns repetition and ordering only.
//!
//! Each turn: `decide`; on rest, `rest`; on move, `plan` → `ask` → `parse` → `act` once per
//! tool call. A parse error or a failed ask becomes an outcome the next plan reports. The
//! stop token is checked before every turn and after every act, so shutdown lets the
//! current act finish and starts no other.

use crate::prepare::Prepared;
use crate::state::State;
use crate::{Decision, Outcome, Parsed};

pub fn r#loop(prepared: Prepared) -> State {
    let Prepared { mut state, mut verbs } = prepared;
    while !state.stop.is_stopped() {
        match (verbs.decide)(&mut state) {
            Decision::Rest => (verbs.rest)(),
            Decision::Move => {
                state.moves += 1;
                let plan = (verbs.plan)(&mut state);
                let level = plan.level;
                let answer = match (verbs.ask)(&mut state, plan) {
                    Ok(answer) => answer,
                    Err(error) => {
                        state.outcomes.push(Outcome::AskFailed { level, error });
                        continue;
                    }
                };
                for entry in (verbs.parse)(&answer.markdown) {
                    match entry {
                        Parsed::Call(call) => {
                            let outcome = (verbs.act)(&mut state, call);
                            state.outcomes.push(outcome);
                        }
                        Parsed::Error(e) => state.outcomes.push(Outcome::Unparsed(e)),
                    }
                    if state.stop.is_stopped() {
                        break;
                    }
                }
            }
        }
    }
    state
}
