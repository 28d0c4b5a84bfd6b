//! The positions and model the search's benchmarks and the profiling example share
//! (`#[path]`-included by benches/search.rs and examples/profile.rs).

use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::evaluator::{Model, FEATURES, SCORE_FEATURES};
use refuge_core::rng::Rng;
use refuge_core::state::State;

/// Walk 1, a few turns in, reached by seeded heuristic play (a decision of player 0).
pub fn position() -> State {
    let mut state = State::new_named(2, "meadows").expect("a shipped route");
    let mut rng = Rng::new(7);
    let mut decisions = 0;
    loop {
        if state.is_chance() {
            let outcome = state.sample_chance(&mut rng);
            state.apply(outcome).expect("a chance outcome");
        } else if decisions >= 12 && state.current_player() == 0 {
            return state;
        } else {
            let action = DEFAULT_ROLLOUT.choose(&state, &mut rng);
            state.apply(action).expect("a legal action");
            decisions += 1;
        }
    }
}

/// A summary model of plausible weights (the shipped ones live in Python's package data).
pub fn model() -> Model {
    let mut win = [0.1; FEATURES];
    win[0] = 0.3;
    let mut score = [0.5; SCORE_FEATURES];
    score[0] = 1.0;
    Model::new(&win, &score).expect("the summary layout's lengths")
}
