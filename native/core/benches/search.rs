//! Criterion benchmarks of the native search (⇄ benchmarks/bench_native_search.py): one search
//! iteration of the agent's preset (heuristic prior and rollouts, cut off after 8 decisions and
//! judged by a summary model) and of the advisor's (heuristic rollouts to the end, widening 0.1
//! below the root), from a 2-player position reached by seeded heuristic play.

use std::sync::Mutex;

use criterion::{criterion_group, criterion_main, Criterion};

use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::evaluator::{Model, FEATURES, SCORE_FEATURES};
use refuge_core::endgames::{Probes, SearchOracle, LEAF_MAX_NODES};
use refuge_core::ismcts::{Config, Helpers, Table, Tree};
use refuge_core::rng::Rng;
use refuge_core::state::State;

/// Walk 1, a few turns in, reached by seeded heuristic play (a decision of player 0).
fn position() -> State {
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
fn model() -> Model {
    let mut win = [0.1; FEATURES];
    win[0] = 0.3;
    let mut score = [0.5; SCORE_FEATURES];
    score[0] = 1.0;
    Model::new(&win, &score).expect("the summary layout's lengths")
}

fn search_iteration(c: &mut Criterion) {
    let state = position();
    let model = model();
    let (agent_probes, advisor_probes) = (Mutex::new(Probes::new()), Mutex::new(Probes::new()));
    let agent_oracle = SearchOracle::new(&agent_probes, LEAF_MAX_NODES);
    let advisor_oracle = SearchOracle::new(&advisor_probes, LEAF_MAX_NODES);
    let agent = Config { step_root: false, rollout_cutoff: Some(8), ..Config::default() };
    let agent_helpers = Helpers {
        rollout: Some(&DEFAULT_ROLLOUT),
        prior: Some(&DEFAULT_ROLLOUT),
        evaluator: Some(&model),
        oracle: Some(&agent_oracle),
    };
    let advisor = Config { widening: 0.1, exploration_below: 0.3, ..Config::default() };
    let advisor_helpers = Helpers { rollout: Some(&DEFAULT_ROLLOUT), oracle: Some(&advisor_oracle), ..Helpers::default() };
    for (name, config, helpers) in [("agent", &agent, &agent_helpers), ("advisor", &advisor, &advisor_helpers)] {
        let mut table = Table::default();
        let mut tree = Tree::new(&state, config, helpers, Rng::new(1), &mut table);
        c.bench_function(&format!("search iteration ({name})"), |b| {
            b.iter(|| tree.iterate().expect("the oracle answers natively"))
        });
    }
}

criterion_group!(benches, search_iteration);
criterion_main!(benches);
