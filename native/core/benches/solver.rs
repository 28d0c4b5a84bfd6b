//! Criterion benchmarks of the exact solver (⇄ search/solver.py): a typical last-walk position with
//! one walker solved from a fresh memo. Run: `cargo bench -p refuge-core --bench solver`; the same
//! positions by the Python solver: benchmarks/bench_solver_native.py (`make bench`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use refuge_core::solver::ExactSolver;
use refuge_core::{heuristic_choice, Rng, State};

/// The first decision of a 2-player meadows game (heuristic play, seed `seed`) with a single
/// walker in the last walk (⇄ benchmarks/bench_solver_native.py `last_walk`).
fn last_walk(seed: u64) -> State {
    let mut pos = State::new_named(2, "meadows").unwrap();
    let mut rng = Rng::new(seed);
    loop {
        let last = pos.walk == pos.ruleset.walks - 1;
        let walkers = pos.walking[..pos.players].iter().filter(|&&w| w).count();
        let player = pos.current_player();
        if last && walkers == 1 && player >= 0 && pos.walking[player as usize] {
            return pos;
        }
        assert!(!pos.is_terminal(), "seed {seed}: no single-walker decision");
        let action = if pos.is_chance() { pos.sample_chance(&mut rng) } else { heuristic_choice(&pos, &mut rng) };
        pos.apply(action).unwrap();
    }
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("solver");
    group.sample_size(20);
    for (seed, nodes) in [(11, 4_383), (10, 64_047)] {
        let pos = last_walk(seed);
        assert_eq!(ExactSolver::new(300_000).solve(&pos).unwrap().nodes, nodes);
        group.bench_function(format!("last walk, one walker, {nodes} positions (seed {seed})"), |b| {
            b.iter(|| black_box(ExactSolver::new(300_000).solve(black_box(&pos)).unwrap().best))
        });
    }
    group.finish();
}

criterion_group!(solver, benches);
criterion_main!(solver);
