//! Criterion benchmarks of the native search (⇄ benchmarks/bench_native_search.py): one search
//! iteration of the agent's preset (heuristic prior and rollouts, cut off after 8 decisions and
//! judged by a summary model, or by a network model: the position layout and 16 tanh units) and of
//! the advisor's (heuristic rollouts to the end, widening 0.1 below the root), from a 2-player
//! position reached by seeded heuristic play; and one evaluation by each model.

use std::hint::black_box;
use std::sync::Mutex;

use criterion::{criterion_group, criterion_main, Criterion};

use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::endgames::{Probes, SearchOracle, LEAF_MAX_NODES};
use refuge_core::evaluator::evaluate;
use refuge_core::ismcts::{Config, Helpers, Table, Tree};
use refuge_core::rng::Rng;

#[path = "shared/search_fixtures.rs"]
mod search_fixtures;
use search_fixtures::{model, network_model, position};

fn search_iteration(c: &mut Criterion) {
    let state = position();
    let (model, network) = (model(), network_model());
    let probes = [Mutex::new(Probes::new()), Mutex::new(Probes::new()), Mutex::new(Probes::new())];
    let [agent_oracle, network_oracle, advisor_oracle] = probes.each_ref().map(|p| SearchOracle::new(p, LEAF_MAX_NODES));
    let agent = Config { step_root: false, rollout_cutoff: Some(8), ..Config::default() };
    let summary_helpers = Helpers {
        rollout: Some(&DEFAULT_ROLLOUT),
        prior: Some(&DEFAULT_ROLLOUT),
        evaluator: Some(&model),
        oracle: Some(&agent_oracle),
    };
    let network_helpers = Helpers { evaluator: Some(&network), oracle: Some(&network_oracle), ..summary_helpers };
    let advisor = Config { widening: 0.1, exploration_below: 0.3, ..Config::default() };
    let advisor_helpers = Helpers { rollout: Some(&DEFAULT_ROLLOUT), oracle: Some(&advisor_oracle), ..Helpers::default() };
    let presets = [
        ("agent", &agent, &summary_helpers),
        ("agent, network model", &agent, &network_helpers),
        ("advisor", &advisor, &advisor_helpers),
    ];
    for (name, config, helpers) in presets {
        let mut table = Table::default();
        let mut tree = Tree::new(&state, config, helpers, Rng::new(1), &mut table);
        c.bench_function(&format!("search iteration ({name})"), |b| {
            b.iter(|| tree.iterate().expect("the oracle answers natively"))
        });
    }
}

fn evaluation(c: &mut Criterion) {
    let state = position();
    for (name, model) in [("summary", model()), ("network", network_model())] {
        c.bench_function(&format!("evaluation ({name} model)"), |b| b.iter(|| evaluate(&model, black_box(&state))));
    }
}

criterion_group!(benches, search_iteration, evaluation);
criterion_main!(benches);
