//! The positions and model the search's benchmarks and the profiling example share
//! (`#[path]`-included by benches/search.rs and examples/profile.rs).

use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::evaluator::{Layout, Model, FEATURES, SCORE_FEATURES};
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

/// A network model (the position layout, 16 tanh units, as lab/data/evaluator-network.json) of
/// seeded weights of a fitted model's sizes.
pub fn network_model() -> Model {
    let mut rng = Rng::new(5);
    let mut draw = |n: usize, scale: f64| -> Vec<f64> { (0..n).map(|_| (rng.random() * 2.0 - 1.0) * scale).collect() };
    let width = Layout::Network.width();
    let (win, score) = (draw(width, 0.05), draw(width + 2, 0.3));
    let weights_in: Vec<Vec<f64>> = (0..width).map(|_| draw(16, 0.1)).collect();
    let (bias, out) = (draw(16, 0.5), draw(16, 0.5));
    Model::with_layout("network", &win, &score, Some((&weights_in, &bias, &out))).expect("the network layout's lengths")
}
