//! A driver for profilers and CPU-time comparisons of the kernel's hot paths: it runs one of the
//! criterion benchmarks' routines (benches/kernel.rs, benches/search.rs) `N` times and prints a
//! checksum. On a shared machine criterion's wall-clock times move with the load; the process's
//! user time does much less, so two builds are compared by running each alternately under
//! `/usr/bin/time -f %U` and keeping each one's minimum (docs/performance.md), and callgrind counts
//! instructions exactly:
//!
//! ```sh
//! cargo build --profile bench -p refuge-core --example profile
//! /usr/bin/time -f %U target/release/examples/profile playout 60000
//! valgrind --tool=callgrind target/release/examples/profile playout 200
//! ```
//!
//! Routines: `copy`, `draw` (a copy, then draw+apply: subtract `copy`), `playout` (heuristic, 2
//! players), `random` (a random playout), `agent`, `agent-network` (cut off by a network model)
//! and `advisor` (search iterations of one tree), `evaluate` and `evaluate-network` (one
//! evaluation by the summary or the network model), `solver` (benches/solver.rs: the exact solver's
//! two last-walk positions, each from a fresh memo).

use std::hint::black_box;
use std::sync::Mutex;

use refuge_core::catalogue::DEFAULT_ROLLOUT;
use refuge_core::endgames::{Probes, SearchOracle, LEAF_MAX_NODES};
use refuge_core::ismcts::{Config, Helpers, Table, Tree};
use refuge_core::solver::{ExactSolver, DEFAULT_MAX_NODES};
use refuge_core::{heuristic_choice, Playout, Rng, State};

#[path = "../benches/shared/search_fixtures.rs"]
mod search_fixtures;
use search_fixtures::{model, network_model, position};

/// benches/kernel.rs `midgame`: a few turns into a 2-player game, at a deal.
fn midgame() -> State {
    let mut pos = State::new_named(2, "meadows").expect("a shipped route");
    let mut rng = Rng::new(1);
    let mut events = 0;
    while events < 40 || !pos.is_chance() {
        let action = if pos.is_chance() { pos.sample_chance(&mut rng) } else { DEFAULT_ROLLOUT.choose(&pos, &mut rng) };
        pos.apply(action).expect("a legal action");
        events += 1;
    }
    pos
}

/// `n` iterations of one tree with the agent's preset (cut off by the summary model, or by
/// `network`) or the advisor's (benches/search.rs); a hash of the root statistics.
fn search(advisor: bool, network: bool, n: usize) -> i64 {
    let state = position();
    let model = if network { network_model() } else { model() };
    let probes = Mutex::new(Probes::new());
    let scope = SearchOracle::new(&probes, LEAF_MAX_NODES);
    let config = if advisor {
        Config { widening: 0.1, exploration_below: 0.3, ..Config::default() }
    } else {
        Config { step_root: false, rollout_cutoff: Some(8), ..Config::default() }
    };
    let helpers = if advisor {
        Helpers { rollout: Some(&DEFAULT_ROLLOUT), oracle: Some(&scope), ..Helpers::default() }
    } else {
        Helpers { rollout: Some(&DEFAULT_ROLLOUT), prior: Some(&DEFAULT_ROLLOUT), evaluator: Some(&model), oracle: Some(&scope) }
    };
    let mut table = Table::default();
    let mut tree = Tree::new(&state, &config, &helpers, Rng::new(1), &mut table);
    for _ in 0..n {
        tree.iterate().expect("the oracle answers natively");
    }
    // the root statistics' bits: a build that changes any result changes the checksum
    let outcome = tree.outcome(n as u64);
    let bits = outcome.sums.iter().fold(0u64, |h, &(action, visits, value, score, policy)| {
        refuge_core::hash::fold(h, &[action as i64, visits as i64, value.to_bits() as i64, score.to_bits() as i64, policy.to_bits() as i64])
    });
    (bits >> 1) as i64
}

/// benches/solver.rs `last_walk`: the first decision of a 2-player meadows game (heuristic play,
/// seed `seed`) with a single walker in the last walk.
fn last_walk(seed: u64) -> State {
    let mut pos = State::new_named(2, "meadows").expect("a shipped route");
    let mut rng = Rng::new(seed);
    loop {
        let walkers = pos.walking[..pos.players].iter().filter(|&&w| w).count();
        let player = pos.current_player();
        if pos.walk == pos.ruleset.walks - 1 && walkers == 1 && player >= 0 && pos.walking[player as usize] {
            return pos;
        }
        let action = if pos.is_chance() { pos.sample_chance(&mut rng) } else { heuristic_choice(&pos, &mut rng) };
        pos.apply(action).expect("a legal action");
    }
}

/// `n` solves of each of benches/solver.rs's positions, each from a fresh memo; a hash of the
/// positions solved and every option's value.
fn solves(n: usize) -> i64 {
    let positions = [last_walk(11), last_walk(10)];
    let mut hash = 0;
    for _ in 0..n {
        for pos in &positions {
            let result = ExactSolver::new(DEFAULT_MAX_NODES).solve(black_box(pos)).expect("within the budget");
            for option in &result.options {
                let (wins, scores) = option.value.floats();
                let bits: Vec<i64> = wins.iter().chain(scores.iter()).map(|f| f.to_bits() as i64).collect();
                hash = refuge_core::hash::fold(hash, &[result.nodes as i64, option.action as i64]);
                hash = refuge_core::hash::fold(hash, &bits);
            }
        }
    }
    (hash >> 1) as i64
}

fn main() {
    let mut args = std::env::args().skip(1);
    let routine = args.next().unwrap_or_else(|| "playout".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut rng = Rng::new(3);
    let start = State::new_named(2, "meadows").expect("a shipped route");
    let mut checksum = 0i64;
    match routine.as_str() {
        "copy" | "draw" => {
            let pos = midgame();
            for _ in 0..n {
                let mut copy = black_box(&pos).copy();
                if routine == "draw" {
                    let outcome = copy.sample_chance(&mut rng);
                    copy.apply(outcome).expect("a sampled outcome");
                }
                checksum += black_box(&copy).history as i64 & 1;
            }
        }
        "playout" | "random" => {
            for _ in 0..n {
                let mut pos = start;
                let policy = if routine == "playout" { Playout::Heuristic(&DEFAULT_ROLLOUT) } else { Playout::Random };
                pos.playout(&mut rng, policy);
                checksum += pos.vp[0] as i64 + (pos.history % 7) as i64;
            }
        }
        "agent" | "agent-network" | "advisor" => checksum = search(routine == "advisor", routine == "agent-network", n),
        "evaluate" | "evaluate-network" => {
            let model = if routine == "evaluate" { model() } else { network_model() };
            let state = position();
            for _ in 0..n {
                let (wins, _) = refuge_core::evaluator::evaluate(&model, black_box(&state));
                checksum += (wins[0] * 1e6) as i64 & 1;
            }
        }
        "solver" => checksum = solves(n),
        _ => panic!("unknown routine {routine:?}: copy, draw, playout, random, agent, agent-network, advisor, evaluate, evaluate-network or solver"),
    }
    println!("{routine} x{n}: checksum {checksum}");
}
