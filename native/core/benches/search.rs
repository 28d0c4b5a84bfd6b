//! Criterion benchmarks of the native search (⇄ benchmarks/bench_native_search.py): one search
//! iteration of the agent's preset (heuristic prior and rollouts, cut off after 8 decisions and
//! judged by a summary model) and of the advisor's (heuristic rollouts to the end, widening 0.1
//! below the root), from a 2-player position reached by seeded heuristic play.

use std::sync::Mutex;

use criterion::{criterion_group, criterion_main, Criterion};

use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::endgames::{Probes, SearchOracle, LEAF_MAX_NODES};
use refuge_core::ismcts::{Config, Helpers, Table, Tree};
use refuge_core::rng::Rng;

#[path = "shared/search_fixtures.rs"]
mod search_fixtures;
use search_fixtures::{model, position};

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
